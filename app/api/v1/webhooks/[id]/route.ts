import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { UpdateWebhookRequestSchema } from "@/lib/api/schemas/notifications";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/notifications/service";

export const GET = authedRoute(async ({ auth, params }) =>
  json(await getWebhook(auth.accountId, pathId(params, "id", "webhook"))),
);

export const PATCH = authedRoute(async ({ request, auth, params }) => {
  const id = pathId(params, "id", "webhook");
  const body = await parseJsonBody(request, UpdateWebhookRequestSchema, {
    fieldCodes: {
      url: "invalid_webhook_url",
      events: "invalid_events",
      description: "invalid_description",
      enabled: "invalid_enabled",
      ntfy_token: "invalid_ntfy_token",
    },
  });
  return json(await updateWebhook(auth.accountId, id, body));
});

export const DELETE = authedRoute(async ({ auth, params }) =>
  json(await deleteWebhook(auth.accountId, pathId(params, "id", "webhook"))),
);

export const { POST, PUT } = methodNotAllowed(["GET", "PATCH", "DELETE"]);
