import { describe, expect, it } from "vitest";
import { settingDefaults } from "@/lib/boot/settings";
import { RECOVERY_CODE_BITS, RECOVERY_CODE_COUNT } from "./credentials";

/** The brute-force figures of docs/security.md, from the limits in force: a change of a default that weakens them fails here. */
const DAY = 86_400;
const YEAR_DAYS = 365.25;
const perDay = ({ limit, windowSeconds }: { limit: number; windowSeconds: number }) =>
  (limit * DAY) / windowSeconds;

describe("guessing a second factor with the default limits", () => {
  const defaults = settingDefaults();

  it("a TOTP code: 30 guesses a day at most, about 30 years on average, 3.2% in a year", () => {
    const guesses = perDay(defaults.RATE_LIMIT_TOTP_ACCOUNT_FAILURES);
    const chance = 3 / 1e6; // the codes of three 30-second steps are accepted
    expect(guesses).toBe(30);
    expect(1 / (chance * guesses) / YEAR_DAYS).toBeGreaterThan(30);
    expect(1 - Math.exp(-chance * guesses * YEAR_DAYS)).toBeLessThan(0.033);
  });

  it("a recovery code: beyond 600 years even from every /64 of an IPv6 /32", () => {
    const chance = RECOVERY_CODE_COUNT / 2 ** RECOVERY_CODE_BITS;
    const perAddress = perDay(defaults.RATE_LIMIT_RECOVERY_FAILURES);
    expect(perAddress).toBe(120);
    const years = (addresses: number) => 1 / (chance * perAddress * addresses) / YEAR_DAYS;
    expect(years(1)).toBeGreaterThan(2.6e12);
    expect(years(1e6)).toBeGreaterThan(2.6e6);
    expect(years(2 ** 32)).toBeGreaterThan(600);
  });
});
