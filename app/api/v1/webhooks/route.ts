import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { CreateWebhookBody } from "@/lib/api/schemas/notifications";
import { createWebhook, listWebhooks } from "@/lib/notifications/service";

export const GET = authedRoute("listWebhooks", async ({ auth }) =>
  json({ webhooks: await listWebhooks(auth.accountId) }),
);

export const POST = authedRoute("createWebhook", async ({ request, auth }) => {
  const body = await parseJsonBody(request, CreateWebhookBody);
  return json(await createWebhook(auth.accountId, body), 201);
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
