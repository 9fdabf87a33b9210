import { describe, expect, it } from "vitest";
import { renewalShortfall, warningStage, wontRenewBecause } from "./warnings";

const hours = (h: number) => h * 3_600_000;

describe("expiry warning stages (72 h and 24 h)", () => {
  const leads = [72, 24];
  it("is outside every lead time before 72 h, then at 72 h, then at 24 h", () => {
    expect(warningStage(hours(80), leads)).toBeUndefined();
    expect(warningStage(hours(72), leads)).toBe(72);
    expect(warningStage(hours(30), leads)).toBe(72);
    expect(warningStage(hours(24), leads)).toBe(24);
    expect(warningStage(hours(1), leads)).toBe(24);
  });
  it("warns of nothing once the server has expired", () => {
    expect(warningStage(0, leads)).toBeUndefined();
    expect(warningStage(-5, leads)).toBeUndefined();
  });
  it("a server first seen inside both is in the nearer one only", () => {
    expect(warningStage(hours(12), leads)).toBe(24);
  });
});

describe("whether a server renews by itself", () => {
  it("only with automatic renewal on and a balance that covers the price", () => {
    expect(wontRenewBecause(false, 10_000, 500)).toBe("auto_renew_off");
    expect(wontRenewBecause(true, 499, 500)).toBe("balance_short");
    expect(wontRenewBecause(true, 500, 500)).toBeUndefined();
  });
});

describe("a balance short of the week's renewals", () => {
  const at = (day: number) => new Date(Date.UTC(2026, 11, day));
  const renewals = [
    { serverId: 3, expiresAt: at(5), priceCents: 1_000 },
    { serverId: 1, expiresAt: at(2), priceCents: 500 },
    { serverId: 2, expiresAt: at(3), priceCents: 700 },
  ];
  it("names the first renewal, in the order they are charged, that the balance no longer covers", () => {
    expect(renewalShortfall(1_300, renewals)).toEqual({ first: renewals[0], neededCents: 2_200 });
    expect(renewalShortfall(1_199, renewals)).toEqual({ first: renewals[2], neededCents: 2_200 });
    expect(renewalShortfall(0, renewals)?.first.serverId).toBe(1);
  });
  it("is nothing when the balance covers them all", () => {
    expect(renewalShortfall(2_200, renewals)).toBeUndefined();
    expect(renewalShortfall(0, [])).toBeUndefined();
  });
});
