import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { EmptyBody } from "@/lib/api/schemas/common";
import { redeliver } from "@/lib/notifications/service";

export const POST = authedRoute("redeliverWebhookDelivery", async ({ request, auth, params }) => {
  const id = pathId(params, "id", "webhook");
  const deliveryId = pathId(params, "deliveryId", "delivery");
  await parseJsonBody(request, EmptyBody);
  return json(await redeliver(auth.accountId, id, deliveryId), 202);
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
