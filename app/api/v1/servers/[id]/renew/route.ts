import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { EmptyBody } from "@/lib/api/schemas/common";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { renewServerPaying } from "@/lib/purchases/renewal";
import { payerOf } from "@/lib/servers/billing";
import { paidResource, readPaymentHeader } from "@/lib/topups/request";
import { X402_EXPOSED_HEADERS } from "@/lib/topups/x402";

export const POST = authedRoute("renewServer", async ({ request, auth, params, client }) => {
  const serverId = pathId(params, "id", "server");
  const idempotencyKey = readIdempotencyKey(request.headers);
  await parseJsonBody(request, EmptyBody);
  const outcome = await renewServerPaying({
    payer: payerOf(auth),
    serverId,
    idempotencyKey,
    payment: readPaymentHeader(request.headers),
    resource: paidResource(request, `/api/v1/servers/${serverId}/renew`),
    client,
  });
  return json(outcome.body, outcome.status, {
    ...outcome.headers,
    ...X402_EXPOSED_HEADERS,
  });
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
