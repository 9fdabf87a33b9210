import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { EmptyBody } from "@/lib/api/schemas/common";
import { sendTest } from "@/lib/notifications/service";

export const POST = authedRoute("testWebhook", async ({ request, auth, params }) => {
  const id = pathId(params, "id", "webhook");
  await parseJsonBody(request, EmptyBody);
  return json(await sendTest(auth.accountId, id), 202);
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
