import { describe, expect, it } from "vitest";
import {
  creditTargetCents,
  formatCoinAmount,
  quoteUnits,
  rateFromE8,
  rateToE8,
  unitsToCents,
} from "./amounts";

describe("rates", () => {
  it("parses decimal rates exactly and refuses anything else", () => {
    expect(rateToE8("97000.12")).toBe(9_700_012_000_000n);
    expect(rateFromE8(rateToE8("1"))).toBe("1");
    for (const bad of ["", "-1", "0", "1e5", "abc", "1.", ".5"]) expect(() => rateToE8(bad)).toThrow();
  });
});

describe("quoteUnits", () => {
  it("asks for at least the amount's worth, rounded up to the display precision", () => {
    const rate = rateToE8("97000");
    const units = quoteUnits(2500, rate, 8, 8);
    expect(units).toBe(25_774n); // 25 / 97000 = 0.000257731... BTC, rounded up
    expect(unitsToCents(units, rate, 8)).toBeGreaterThanOrEqual(2500);
    expect(unitsToCents(units - 1n, rate, 8)).toBeLessThan(2500);
  });

  it("rounds wei amounts up to 8 decimals", () => {
    const units = quoteUnits(2500, rateToE8("3200"), 18, 8);
    expect(units % 10n ** 10n).toBe(0n);
    expect(formatCoinAmount(units, 18, 0)).toBe("0.0078125");
  });

  it("quotes a stablecoin at par exactly", () => {
    expect(quoteUnits(200_000, rateToE8("1"), 6, 2)).toBe(2_000_000_000n);
    expect(formatCoinAmount(2_000_000_000n, 6, 2)).toBe("2000.00");
  });

  it("is never short of the amount across many rates and amounts", () => {
    for (const rate of ["0.07", "1", "13.37", "160.5", "3200", "97000.12345678"]) {
      for (const cents of [2500, 2501, 9999, 123_456, 200_000]) {
        for (const [decimals, display] of [
          [8, 8],
          [12, 8],
          [18, 8],
          [6, 2],
        ] as const) {
          const units = quoteUnits(cents, rateToE8(rate), decimals, display);
          expect(unitsToCents(units, rateToE8(rate), decimals)).toBeGreaterThanOrEqual(cents);
        }
      }
    }
  });
});

describe("creditTargetCents", () => {
  const base = { requiredUnits: 25_774n, amountCents: 2500, rateE8: rateToE8("97000"), decimals: 8 };

  it("credits exactly the amount when exactly the asked units arrive", () => {
    expect(creditTargetCents({ ...base, confirmedUnits: 25_774n })).toBe(2500);
  });

  it("credits a partial payment at the locked rate, rounded down", () => {
    expect(creditTargetCents({ ...base, confirmedUnits: 10_000n })).toBe(970);
    expect(creditTargetCents({ ...base, confirmedUnits: 0n })).toBe(0);
  });

  it("credits an overpayment on top of the amount", () => {
    expect(creditTargetCents({ ...base, confirmedUnits: 25_774n + 100_000n })).toBe(2500 + 9700);
  });

  it("grows monotonically with what arrived", () => {
    let previous = 0;
    for (let units = 0n; units < 60_000n; units += 997n) {
      const credit = creditTargetCents({ ...base, confirmedUnits: units });
      expect(credit).toBeGreaterThanOrEqual(previous);
      previous = credit;
    }
  });
});

describe("formatCoinAmount", () => {
  it("keeps the minimum decimals and drops nothing significant", () => {
    expect(formatCoinAmount(25_774n, 8, 8)).toBe("0.00025774");
    expect(formatCoinAmount(100_000_000n, 8, 8)).toBe("1.00000000");
    expect(formatCoinAmount(1n, 18, 0)).toBe("0.000000000000000001");
  });
});
