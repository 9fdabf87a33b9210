import { describe, expect, it } from "vitest";
import { BffError } from "./bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "./idempotency";

describe("one Idempotency-Key per intended request", () => {
  const order = { plan: "pup", location: "nl" };

  it("reuses the key for the same request until the intent is settled", () => {
    const intent: IntentRef = { current: undefined };
    const first = idempotencyKeyFor(intent, order);
    expect(idempotencyKeyFor(intent, { ...order })).toBe(first);
    // A network error or a 5xx may hide a success: the retry must carry the same key.
    settleIntent(intent, new TypeError("fetch failed"));
    expect(idempotencyKeyFor(intent, order)).toBe(first);
    settleIntent(intent, new BffError(503, "service_unavailable", "later", {}));
    expect(idempotencyKeyFor(intent, order)).toBe(first);
  });

  it("starts a new key for a changed request, after a success and after a definite refusal", () => {
    const intent: IntentRef = { current: undefined };
    const first = idempotencyKeyFor(intent, order);
    const changed = idempotencyKeyFor(intent, { ...order, location: "fr" });
    expect(changed).not.toBe(first);
    settleIntent(intent);
    const afterSuccess = idempotencyKeyFor(intent, { ...order, location: "fr" });
    expect(afterSuccess).not.toBe(changed);
    settleIntent(intent, new BffError(402, "insufficient_balance", "short", {}));
    expect(idempotencyKeyFor(intent, { ...order, location: "fr" })).not.toBe(afterSuccess);
  });
});
