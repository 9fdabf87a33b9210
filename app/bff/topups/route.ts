import { z } from "zod";
import { bffJson, bffRoute, relay } from "@/lib/session/bff";

export const GET = bffRoute(async ({ api }) => relay(await api.GET("/topups")), { signedIn: true });

const CreateTopupBody = z.strictObject({
  amount: z.number().positive().max(1_000_000),
  coin: z.enum(["BTC", "XMR", "ETH", "LTC", "USDTTRC", "USDT", "USDCBASE"]),
});

/** base64 of the x402 payload, as the wallet path sends it back; the API checks what it says. */
const PaymentHeader = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9+/=]+$/);
const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/);

/**
 * Starts a top-up. A classic coin answers 201 with its deposit; USDC on Base answers the x402 challenge
 * (402), and the same request sent again with the wallet's signed `X-PAYMENT` settles it (201). The
 * answer, whatever it is, goes back as the API gave it: the amount rules are the API's.
 */
export const POST = bffRoute(
  async ({ request, api }) => {
    const body = CreateTopupBody.safeParse(await request.json().catch(() => undefined));
    if (!body.success) {
      return bffJson({ error: "invalid_body", message: "Send {amount, coin}." }, 400);
    }
    const payment = request.headers.get("x-payment");
    const idempotencyKey = request.headers.get("idempotency-key");
    if (payment !== null && !PaymentHeader.safeParse(payment).success) {
      return bffJson({ error: "invalid_payment", message: "X-PAYMENT is not a base64 payment." }, 400);
    }
    if (idempotencyKey !== null && !IdempotencyKey.safeParse(idempotencyKey).success) {
      return bffJson({ error: "invalid_idempotency_key", message: "Idempotency-Key is not valid." }, 400);
    }
    const headers: Record<string, string> = {};
    if (payment) headers["X-PAYMENT"] = payment;
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    return relay(await api.POST("/topups", { body: body.data, headers }));
  },
  { signedIn: true },
);
