import { describe, expect, it } from "vitest";
import { nextTopupStatus } from "./status";

const now = new Date("2026-11-22T12:00:00Z");
const before = new Date("2026-11-22T11:00:00Z");
const after = new Date("2026-11-22T13:00:00Z");
const base = { now, expiresAt: after, confirmedUnits: 0n, unconfirmedUnits: 0n, requiredUnits: 100n };

describe("nextTopupStatus", () => {
  it("stays pending until paid or expired", () => {
    expect(nextTopupStatus({ ...base, status: "pending" })).toBe("pending");
    expect(nextTopupStatus({ ...base, status: "pending", confirmedUnits: 99n })).toBe("pending");
  });

  it("completes once confirmed payments cover the amount, also overpaid", () => {
    expect(nextTopupStatus({ ...base, status: "pending", confirmedUnits: 100n })).toBe("completed");
    expect(nextTopupStatus({ ...base, status: "pending", confirmedUnits: 500n })).toBe("completed");
  });

  it("does not count unconfirmed payments as paid", () => {
    expect(nextTopupStatus({ ...base, status: "pending", unconfirmedUnits: 100n })).toBe("pending");
  });

  it("expires after expires_at with nothing received", () => {
    expect(nextTopupStatus({ ...base, status: "pending", expiresAt: before })).toBe("expired");
  });

  it("waits past expiry for a payment that is still confirming", () => {
    expect(nextTopupStatus({ ...base, status: "pending", expiresAt: before, unconfirmedUnits: 100n })).toBe(
      "pending",
    );
  });

  it("expires a partly paid top-up once nothing more is confirming", () => {
    expect(nextTopupStatus({ ...base, status: "pending", expiresAt: before, confirmedUnits: 40n })).toBe(
      "expired",
    );
  });

  it("completes an expired or cancelled top-up paid late in full", () => {
    expect(nextTopupStatus({ ...base, status: "expired", expiresAt: before, confirmedUnits: 100n })).toBe(
      "completed",
    );
    expect(nextTopupStatus({ ...base, status: "cancelled", confirmedUnits: 100n })).toBe("completed");
  });

  it("never moves a cancelled or expired top-up back to pending", () => {
    expect(nextTopupStatus({ ...base, status: "cancelled", unconfirmedUnits: 100n })).toBe("cancelled");
    expect(nextTopupStatus({ ...base, status: "expired", confirmedUnits: 10n })).toBe("expired");
  });
});
