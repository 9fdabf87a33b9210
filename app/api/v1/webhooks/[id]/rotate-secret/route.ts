import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { RotateSecretBody } from "@/lib/api/schemas/notifications";
import { rotateSecret } from "@/lib/notifications/service";

export const POST = authedRoute("rotateWebhookSecret", async ({ request, auth, params }) => {
  const id = pathId(params, "id", "webhook");
  const body = await parseJsonBody(request, RotateSecretBody);
  return json(await rotateSecret(auth.accountId, id, body.previous_valid_hours));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
