import { BffError } from "./bff-fetch";

/** A fresh Idempotency-Key for one intended money-moving action (an order, a renewal). */
export const newIdempotencyKey = () => crypto.randomUUID();

/** The request an Idempotency-Key was made for, kept by a form across its retries. */
export type IntentRef = { current: { body: string; key: string } | undefined };

/**
 * The key for sending `body`: the same request again (a retry after a network error or a 5xx, when the first
 * may have been taken) reuses its key; a changed request gets a new one, as the API refuses a key reused for
 * another body.
 */
export function idempotencyKeyFor(intent: IntentRef, body: unknown): string {
  const serialized = JSON.stringify(body);
  if (intent.current?.body !== serialized) intent.current = { body: serialized, key: newIdempotencyKey() };
  return intent.current.key;
}

/** After a success or a definite refusal (4xx) the intent is over; the next request is a new one. */
export function settleIntent(intent: IntentRef, error?: unknown): void {
  if (!error || (error instanceof BffError && error.status < 500)) intent.current = undefined;
}
