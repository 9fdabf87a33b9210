import { db } from "@/lib/db/client";
import { operatorSettings } from "@/lib/operator/config";
import { listOperators } from "@/lib/operator/operators";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";

export const GET = operatorRoute("manage_operators", async () =>
  json({
    operators: await listOperators(await db()),
    daily_cap_usd: operatorSettings().adjustmentDailyCapCents / 100,
  }),
);

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
