import { accountDetail } from "@/lib/operator/accounts";
import { json, operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";

export const GET = operatorRoute("read", async (context) =>
  json(await accountDetail(operatorPathId(context))),
);

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
