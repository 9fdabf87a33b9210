import { readPageRequest } from "@/lib/api/pagination";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { DELIVERY_PAGE_DEFAULT } from "@/lib/api/schemas/notifications";
import { listDeliveries } from "@/lib/notifications/service";

export const GET = authedRoute("listWebhookDeliveries", async ({ request, auth, params }) => {
  const id = pathId(params, "id", "webhook");
  const page = await listDeliveries(
    auth.accountId,
    id,
    readPageRequest(new URL(request.url), DELIVERY_PAGE_DEFAULT),
  );
  return json({ deliveries: page.items, next_cursor: page.nextCursor });
});

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
