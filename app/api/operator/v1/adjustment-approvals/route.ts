import { pendingAdjustments } from "@/lib/operator/adjustments";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";

export const GET = operatorRoute("adjust_ledger", async () =>
  json({ approvals: await pendingAdjustments() }),
);

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
