import { parseJsonBody } from "@/lib/api/body";
import { readPageRequest } from "@/lib/api/pagination";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { CreateServerBody, SERVER_PAGE_DEFAULT } from "@/lib/api/schemas/servers";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { orderServerPaying } from "@/lib/purchases/order";
import { payerOf } from "@/lib/servers/billing";
import { listServers, serverReader } from "@/lib/servers/reads";
import { paidResource, readPaymentHeader } from "@/lib/topups/request";

export const GET = authedRoute("listServers", async ({ request, auth }) => {
  const page = await listServers(
    serverReader(auth),
    readPageRequest(new URL(request.url), SERVER_PAGE_DEFAULT),
  );
  return json({ servers: page.items, next_cursor: page.nextCursor });
});

export const POST = authedRoute("createServer", async ({ request, auth, client }) => {
  const idempotencyKey = readIdempotencyKey(request.headers);
  const body = await parseJsonBody(request, CreateServerBody);
  const outcome = await orderServerPaying({
    payer: payerOf(auth),
    request: body,
    idempotencyKey,
    payment: readPaymentHeader(request.headers),
    resource: paidResource(request, "/api/v1/servers"),
    client,
  });
  return json(outcome.body, outcome.status, outcome.headers);
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
