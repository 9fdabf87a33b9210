import { describe, expect, it } from "vitest";
import { proRata } from "./pricing";

const at = (iso: string) => new Date(iso);

describe("a resize's pro-rated amount", () => {
  it("a month: Pup ($4.00) to Fox ($6.50) with 21 of January's 31 days left costs $1.70, back credits $1.69", () => {
    // 250 cents x 1,814,400 s / 2,678,400 s = 169.354... cents: up to 170 charged, down to 169 credited.
    const window = {
      cycle: "monthly" as const,
      expiresAt: at("2027-02-01T00:00:00Z"),
      at: at("2027-01-11T00:00:00Z"),
    };
    expect(proRata({ oldPriceCents: 400, newPriceCents: 650, ...window })).toEqual({
      amountCents: 170,
      secondsLeft: 1_814_400,
      periodSeconds: 2_678_400,
    });
    expect(proRata({ oldPriceCents: 650, newPriceCents: 400, ...window })).toEqual({
      amountCents: -169,
      secondsLeft: 1_814_400,
      periodSeconds: 2_678_400,
    });
  });

  it("a year: Pup ($40.00) to Fox ($65.00) with 184 of 2027's 365 days left costs $12.61, back credits $12.60", () => {
    // 2,500 cents x 15,897,600 s / 31,536,000 s = 1,260.27... cents.
    const window = {
      cycle: "annual" as const,
      expiresAt: at("2028-01-01T00:00:00Z"),
      at: at("2027-07-01T00:00:00Z"),
    };
    expect(proRata({ oldPriceCents: 4000, newPriceCents: 6500, ...window })).toEqual({
      amountCents: 1261,
      secondsLeft: 15_897_600,
      periodSeconds: 31_536_000,
    });
    expect(proRata({ oldPriceCents: 6500, newPriceCents: 4000, ...window }).amountCents).toBe(-1260);
  });

  it("is per second: one second less left costs a little less", () => {
    const base = { oldPriceCents: 400, newPriceCents: 98_000, cycle: "monthly" as const };
    const expiresAt = at("2027-02-01T00:00:00Z");
    const a = proRata({ ...base, expiresAt, at: at("2027-01-31T23:00:00Z") });
    const b = proRata({ ...base, expiresAt, at: at("2027-01-31T23:00:01Z") });
    expect([a.secondsLeft, b.secondsLeft]).toEqual([3600, 3599]);
    // 97,600 cents x 3600 / 2,678,400 = 131.18 -> 132; x 3599: 131.15 -> 132; the exact values differ.
    expect(a.amountCents).toBe(Math.ceil((97_600 * 3600) / 2_678_400));
    expect(b.amountCents).toBe(Math.ceil((97_600 * 3599) / 2_678_400));
  });

  it("an upgrade with a second left still charges a cent; a downgrade then credits nothing, never a negative charge", () => {
    const window = {
      cycle: "monthly" as const,
      expiresAt: at("2027-02-01T00:00:00Z"),
      at: at("2027-01-31T23:59:59Z"),
    };
    expect(proRata({ oldPriceCents: 400, newPriceCents: 650, ...window }).amountCents).toBe(1);
    expect(proRata({ oldPriceCents: 650, newPriceCents: 400, ...window }).amountCents).toBe(0);
    expect(proRata({ oldPriceCents: 650, newPriceCents: 400, ...window }).amountCents).not.toBeGreaterThan(0);
  });

  it("nothing is left past the expiry", () => {
    const result = proRata({
      oldPriceCents: 400,
      newPriceCents: 650,
      cycle: "monthly",
      expiresAt: at("2027-02-01T00:00:00Z"),
      at: at("2027-02-02T00:00:00Z"),
    });
    expect(result).toMatchObject({ amountCents: 0, secondsLeft: 0 });
  });

  it("a server renewed ahead: each period's seconds at that period's length", () => {
    // Paid until 1 March: all of February (28 days, one whole period) and 10 of January's 31 days.
    const result = proRata({
      oldPriceCents: 400,
      newPriceCents: 650,
      cycle: "monthly",
      expiresAt: at("2027-03-01T00:00:00Z"),
      at: at("2027-01-22T00:00:00Z"),
    });
    expect(result.secondsLeft).toBe((28 + 10) * 86_400);
    // 250 x (1 + 10/31) = 330.645... -> 331.
    expect(result.amountCents).toBe(331);
  });
});
