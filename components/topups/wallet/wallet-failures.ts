/**
 * What went wrong in a wallet payment, in words a person can act on. A final refusal leaves nothing paid and is
 * retried by signing a new authorization; a payment still being settled is retried with the same one, as only
 * that can credit a transfer that may already be on its way.
 */
import { BffError, errorMessage } from "@/lib/dashboard/queries/bff-fetch";

export type WalletFailure =
  | "rejected"
  | "wrong_chain"
  | "short"
  | "expired"
  | "settlement"
  | "unsettled"
  | "other";

/** Codes of an x402 payment the service or the chain refused for good. */
const SETTLEMENT_CODES = new Set([
  "payment_failed",
  "payment_rejected",
  "insufficient_funds",
  "invalid_payment_signature",
  "payment_already_used",
]);

/**
 * Codes of a payment not settled yet: the service is settling it, has sent it and awaits the chain, or cannot
 * reach the chain. The API asks for the same X-PAYMENT again; a new signature could pay twice.
 */
const STILL_SETTLING_CODES = new Set([
  "payment_pending",
  "payment_in_progress",
  "payment_network_unavailable",
]);

export const isStillSettling = (error: unknown) =>
  error instanceof BffError && STILL_SETTLING_CODES.has(error.code);

/** True when the wallet's user said no (EIP-1193 code 4001), anywhere in the error's causes. */
export function isUserRejection(error: unknown): boolean {
  let current = error as { name?: string; code?: number; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 10; depth++) {
    if (current.code === 4001 || current.name === "UserRejectedRequestError") return true;
    current = current.cause as typeof current;
  }
  return false;
}

/** The failure of sending the signed payment through the BFF. */
export function settlementFailure(error: unknown): { failure: WalletFailure; message: string } {
  if (error instanceof BffError && error.code === "payment_expired") {
    return {
      failure: "expired",
      message: "The authorization expired before it reached the service. Nothing was paid; sign a new one.",
    };
  }
  if (isStillSettling(error)) {
    return {
      failure: "unsettled",
      message:
        "The payment is not settled yet. Do not sign again: check again in a moment and it is credited once " +
        "the chain confirms it.",
    };
  }
  if (error instanceof BffError && SETTLEMENT_CODES.has(error.code)) {
    return {
      failure: "settlement",
      message: `The payment was not settled: ${error.message} Nothing was charged.`,
    };
  }
  return { failure: "other", message: errorMessage(error) };
}
