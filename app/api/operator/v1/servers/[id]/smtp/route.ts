import { parseJsonBody } from "@/lib/api/body";
import { setServerSmtp } from "@/lib/operator/mail";
import { json, operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";
import { SmtpBody } from "@/lib/operator/schemas";

export const PUT = operatorRoute("mail_policy", async (context) => {
  const serverId = operatorPathId(context);
  const body = await parseJsonBody(context.request, SmtpBody);
  return json(await setServerSmtp(context.operator, serverId, body));
});

export const { GET, POST, PATCH, DELETE } = operatorMethodNotAllowed(["PUT"]);
