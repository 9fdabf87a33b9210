import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { fingerprint, readIdempotencyKey } from "./idempotency";

const headers = (value?: string) => new Headers(value === undefined ? {} : { "idempotency-key": value });

describe("readIdempotencyKey", () => {
  it("is optional and accepts 1 to 255 printable ASCII characters", () => {
    expect(readIdempotencyKey(headers())).toBeUndefined();
    expect(readIdempotencyKey(headers("a"))).toBe("a");
    expect(readIdempotencyKey(headers("order 42/2026-11-22"))).toBe("order 42/2026-11-22");
    expect(readIdempotencyKey(headers("x".repeat(255)))).toHaveLength(255);
  });

  it.each([["x".repeat(256)], ["é"], ["tab\there"]])(
    "refuses %j with 400 invalid_idempotency_key",
    (value) => {
      let caught: unknown;
      try {
        readIdempotencyKey(headers(value));
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ApiError);
      expect((caught as ApiError).code).toBe("invalid_idempotency_key");
    },
  );
});

describe("fingerprint", () => {
  it("is stable for the same request and differs for another", () => {
    expect(fingerprint({ amountCents: 2500, coin: "BTC" })).toBe(
      fingerprint({ amountCents: 2500, coin: "BTC" }),
    );
    expect(fingerprint({ amountCents: 2500, coin: "BTC" })).not.toBe(
      fingerprint({ amountCents: 2501, coin: "BTC" }),
    );
  });
});
