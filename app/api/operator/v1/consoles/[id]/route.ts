import { parseJsonBody } from "@/lib/api/body";
import { closeConsole } from "@/lib/operator/consoles";
import { json, operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";
import { CloseConsoleBody } from "@/lib/operator/schemas";

/** Closes a customer's console session, with the reason for the audit log. */
export const DELETE = operatorRoute("suspend", async (context) => {
  const sessionId = operatorPathId(context);
  const body = await parseJsonBody(context.request, CloseConsoleBody);
  return json(await closeConsole(context.operator, sessionId, body.reason));
});

export const { GET, POST, PUT, PATCH } = operatorMethodNotAllowed(["DELETE"]);
