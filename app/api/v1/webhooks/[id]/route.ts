import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { UpdateWebhookBody } from "@/lib/api/schemas/notifications";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/notifications/service";

export const GET = authedRoute("getWebhook", async ({ auth, params }) =>
  json(await getWebhook(auth.accountId, pathId(params, "id", "webhook"))),
);

export const PATCH = authedRoute("updateWebhook", async ({ request, auth, params }) => {
  const id = pathId(params, "id", "webhook");
  const body = await parseJsonBody(request, UpdateWebhookBody);
  return json(await updateWebhook(auth.accountId, id, body));
});

export const DELETE = authedRoute("deleteWebhook", async ({ auth, params }) =>
  json(await deleteWebhook(auth.accountId, pathId(params, "id", "webhook"))),
);

export const { POST, PUT } = methodNotAllowed(["GET", "PATCH", "DELETE"]);
