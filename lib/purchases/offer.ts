import "server-only";
import { createHash } from "node:crypto";
import { ApiError } from "@/lib/api/errors";
import { decodePaymentHeader, decodePaymentSignatureV2 } from "@/lib/rails/x402/payload";
import {
  X402_EXPOSED_HEADERS,
  type X402Offer,
  type X402Version,
  x402ChallengeHeaders,
  x402Requirement,
} from "@/lib/topups/x402";

/**
 * What a purchase paid with x402 (a renewal, an order) shares: the balance is tried first, and when it is short
 * its 402 `insufficient_balance` also carries the x402 offer for the price; the payment re-sent names the request.
 */

/** A signed payment as it came: its header's value and the wire version that header speaks. */
export type Payment = { header: string; version: X402Version };

export const isShortOfBalance = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.code === "insufficient_balance";

/** The 402 of a purchase the balance does not cover, with the x402 offer that pays `priceCents` instead. */
export function withX402Offer(
  refusal: ApiError,
  priceCents: number,
  resource: string,
  offer: X402Offer & { description: string },
): ApiError {
  const requirement = x402Requirement(priceCents, resource, offer);
  return new ApiError(
    402,
    refusal.code,
    `${refusal.message} Or pay with x402: sign an EIP-3009 authorization for exactly maxAmountRequired and re-send this request with the X-PAYMENT (or PAYMENT-SIGNATURE) header.`,
    { ...refusal.extra, x402Version: 1, accepts: [requirement] },
    {
      ...x402ChallengeHeaders(requirement, refusal.code),
      ...X402_EXPOSED_HEADERS,
    },
  );
}

/**
 * One authorization is one payment whichever header carried it: the payer and nonce name it. A header that
 * does not decode is named by its hash (the payment step refuses it with 400).
 */
export function paymentIdentity(payment: Payment): string {
  try {
    const authorization =
      payment.version === 2
        ? decodePaymentSignatureV2(payment.header).payload.authorization
        : decodePaymentHeader(payment.header).payload.authorization;
    return `${authorization.from}:${authorization.nonce}`.toLowerCase();
  } catch {
    return `header:${createHash("sha256").update(payment.header).digest("hex")}`;
  }
}
