import { z } from "zod";
import { bffJson, bffRoute, idempotencyHeader, jsonBody, relay } from "@/lib/bff-session/bff";
import { listQuery } from "@/lib/bff-session/list-query";

/** One page of the list; `limit` and `cursor` pass through for the API to check. */
export const GET = bffRoute(
  async ({ request, api }) => relay(await api.GET("/topups", { params: { query: listQuery(request) } })),
  { signedIn: true },
);

/** The API checks amount and coin with its own codes; this only refuses what is not a top-up request at all. */
const CreateTopupBody = z.strictObject({ amount: z.number(), coin: z.string().max(16).optional() });

/** base64 of the x402 payload, as the wallet path sends it back; the API checks what it says. */
const PaymentHeader = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9+/=]+$/);

/**
 * Starts a top-up. A classic coin answers 201 with its deposit; USDC on Base answers the x402 challenge
 * (402), and the same request sent again with the wallet's signed `X-PAYMENT` settles it (201). The
 * answer, whatever it is, goes back as the API gave it: the amount rules are the API's.
 */
export const POST = bffRoute(
  async ({ request, api }) => {
    const body = CreateTopupBody.safeParse(await jsonBody(request));
    if (!body.success) {
      return bffJson({ error: "invalid_body", message: "Send {amount, coin}." }, 400);
    }
    const payment = request.headers.get("x-payment");
    if (payment !== null && !PaymentHeader.safeParse(payment).success) {
      return bffJson({ error: "invalid_payment", message: "X-PAYMENT is not a base64 payment." }, 400);
    }
    const headers = { ...idempotencyHeader(request), ...(payment ? { "x-payment": payment } : {}) };
    return relay(await api.POST("/topups", { body: body.data as never, headers }));
  },
  { signedIn: true },
);
