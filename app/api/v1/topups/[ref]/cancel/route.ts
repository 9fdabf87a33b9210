import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { EmptyBody } from "@/lib/api/schemas/common";
import { cancelTopup } from "@/lib/topups/deposit";

export const POST = authedRoute("cancelTopup", async ({ request, auth, params }) => {
  await parseJsonBody(request, EmptyBody);
  return json(await cancelTopup(auth.accountId, String(params.ref)));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
