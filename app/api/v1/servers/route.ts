import { parseJsonBody } from "@/lib/api/body";
import { readPageRequest } from "@/lib/api/pagination";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { CreateServerBody, SERVER_PAGE_DEFAULT } from "@/lib/api/schemas/servers";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { payerOf } from "@/lib/servers/billing";
import { orderServer } from "@/lib/servers/order";
import { listServers, serverReader } from "@/lib/servers/reads";

export const GET = authedRoute("listServers", async ({ request, auth }) => {
  const page = await listServers(
    serverReader(auth),
    readPageRequest(new URL(request.url), SERVER_PAGE_DEFAULT),
  );
  return json({ servers: page.items, next_cursor: page.nextCursor });
});

export const POST = authedRoute("createServer", async ({ request, auth }) => {
  const idempotencyKey = readIdempotencyKey(request.headers);
  const body = await parseJsonBody(request, CreateServerBody);
  const outcome = await orderServer(payerOf(auth), body, idempotencyKey);
  return json(outcome.body, outcome.status, outcome.headers);
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
