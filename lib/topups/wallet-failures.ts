/**
 * What went wrong in a wallet payment, in words a person can act on. Every failure leaves nothing paid and
 * is retried by signing a new authorization.
 */
import { BffError, errorMessage } from "@/lib/queries/bff-fetch";

export type WalletFailure = "rejected" | "wrong_chain" | "short" | "expired" | "settlement" | "other";

/** Codes of an x402 payment the service or the chain refused, or could not settle yet. */
const SETTLEMENT_CODES = new Set([
  "payment_failed",
  "payment_rejected",
  "payment_pending",
  "payment_network_unavailable",
  "payment_in_progress",
  "insufficient_funds",
  "invalid_payment_signature",
  "payment_already_used",
]);

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
  if (error instanceof BffError && SETTLEMENT_CODES.has(error.code)) {
    return {
      failure: "settlement",
      message: `The payment was not settled: ${error.message} Nothing was charged.`,
    };
  }
  return { failure: "other", message: errorMessage(error) };
}
