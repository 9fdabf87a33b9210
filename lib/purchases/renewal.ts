import "server-only";
import { ApiError } from "@/lib/api/errors";
import { fingerprint, type StoredResponse, withIdempotency } from "@/lib/idempotency/idempotency";
import type { Payer } from "@/lib/servers/billing";
import { renewServer } from "@/lib/servers/control";
import { serverRow } from "@/lib/servers/rows";
import { withX402Attempts } from "@/lib/topups/request";
import { payTopupWithX402 } from "@/lib/topups/x402";
import { formatUsd } from "@/lib/util/cents";
import { isShortOfBalance, type Payment, paymentIdentity, withX402Offer } from "./offer";

/**
 * A renewal paid with x402 when the balance is short: the 402 `insufficient_balance` of POST
 * /servers/{id}/renew carries an x402 offer for the renewal's price (the v1 `accepts` in the body, the v2
 * PAYMENT-REQUIRED header), and the request re-sent with the payment is settled at once (nothing is built, so
 * nothing to wait for), credited as a completed top-up and charged for the renewal, both in the ledger. The
 * balance is left as it was. A payment re-sent answers the first renewal again; a renewal refused after the
 * payment settled (the key's spend cap, say) leaves the payment on the balance and says so.
 */

const offerWords = (serverId: number, priceCents: number) =>
  `Renew server ${serverId} for one more cycle: ${formatUsd(priceCents)}, credited to the balance and charged for the renewal`;

/** A refusal of the renewal after the payment settled: the payment is on the balance, and the answer says so. */
function paidButRefused(error: unknown, priceCents: number): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError(
    error.status,
    error.code,
    `Your x402 payment of ${formatUsd(priceCents)} was credited to the balance, but the renewal was refused: ${error.message}`,
    error.extra,
    error.headers,
  );
}

/**
 * POST /servers/{id}/renew. Without a payment, a renewal from the balance (402 with the x402 offer when it is
 * short). With one, the balance is tried first (a payment is never taken when it is not needed), then the
 * payment is settled and the renewal charged; the payment's own identity is its idempotency key.
 */
export async function renewServerPaying(input: {
  payer: Payer;
  serverId: number;
  idempotencyKey: string | undefined;
  payment: Payment | null;
  /** The absolute URL of this renewal, which the x402 offer names as the resource paid for. */
  resource: string;
  /** The client's address: x402 attempts are limited by it beside the account. */
  client: string;
}): Promise<StoredResponse> {
  const { payer, serverId, payment } = input;
  const priceOf = async () => (await serverRow(serverId, { ownedBy: payer.accountId })).priceCents;
  if (!payment) {
    try {
      return await renewServer(payer, serverId, input.idempotencyKey);
    } catch (error) {
      if (!isShortOfBalance(error)) throw error;
      const priceCents = await priceOf();
      throw withX402Offer(error, priceCents, input.resource, {
        description: offerWords(serverId, priceCents),
      });
    }
  }
  return withIdempotency(
    {
      accountId: payer.accountId,
      operation: `POST /servers/${serverId}/renew x402`,
      key: paymentIdentity(payment),
      fingerprint: fingerprint({ serverId }),
    },
    async () => {
      try {
        return await renewServer(payer, serverId, undefined);
      } catch (error) {
        if (!isShortOfBalance(error)) throw error;
      }
      const priceCents = await priceOf();
      const paid = await withX402Attempts(payer.accountId, input.client, () =>
        payTopupWithX402({
          accountId: payer.accountId,
          amountCents: priceCents,
          header: payment.header,
          version: payment.version,
          resource: input.resource,
          offer: { description: offerWords(serverId, priceCents) },
        }),
      );
      const renewed = await renewServer(payer, serverId, undefined).catch((error: unknown) => {
        throw paidButRefused(error, priceCents);
      });
      return {
        ...renewed,
        headers: { ...renewed.headers, [paid.paymentResponse.header]: paid.paymentResponse.value },
      };
    },
  );
}
