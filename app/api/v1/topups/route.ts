import { parseJsonBody } from "@/lib/api/body";
import { readPageRequest } from "@/lib/api/pagination";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { CreateTopupBody, TOPUP_PAGE_DEFAULT } from "@/lib/api/schemas/topups";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { listTopups } from "@/lib/topups/reads";
import { readPaymentHeader, requestTopup, topupResource } from "@/lib/topups/request";
import { X402_EXPOSED_HEADERS } from "@/lib/topups/x402";

export const GET = authedRoute("listTopups", async ({ request, auth }) => {
  const page = await listTopups(auth.accountId, readPageRequest(new URL(request.url), TOPUP_PAGE_DEFAULT));
  return json({ topups: page.items, next_cursor: page.nextCursor });
});

export const POST = authedRoute("createTopup", async ({ request, auth, client }) => {
  const idempotencyKey = readIdempotencyKey(request.headers);
  const body = await parseJsonBody(request, CreateTopupBody);
  const outcome = await requestTopup({
    accountId: auth.accountId,
    body,
    paymentMode: request.headers.get("x-payment-mode"),
    payment: readPaymentHeader(request.headers),
    idempotencyKey,
    resource: topupResource(request),
    client,
  });
  return json(outcome.body, outcome.status, {
    ...outcome.headers,
    ...X402_EXPOSED_HEADERS,
  });
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
