import { describe, expect, it } from "vitest";
import { formatCoinAmount } from "@/lib/rails/amounts";
import { creditPayments, quoteUnits, rateFromE8, rateToE8, unitsToCents } from "./amounts";

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

describe("creditPayments", () => {
  // 25 USD asked at 97,000 USD/BTC: 25,774 sat.
  const quote = {
    requiredUnits: 25_774n,
    amountCents: 2500,
    lockedRateE8: rateToE8("97000"),
    decimals: 8,
    paidUnits: 0n,
  };
  const onTime = (units: bigint) => ({ units, withinQuote: true });
  const late = (units: bigint) => ({ units, withinQuote: false });
  const total = (credits: { quoteCents: number; extraCents: number }[]) =>
    credits.reduce((sum, credit) => sum + credit.quoteCents + credit.extraCents, 0);

  it("credits exactly the amount when exactly the asked units arrive in time, whatever the price now", () => {
    for (const current of [undefined, rateToE8("1"), rateToE8("200000")]) {
      expect(creditPayments(quote, [onTime(25_774n)], current)).toEqual([
        { quoteUnits: 25_774n, quoteCents: 2500, extraUnits: 0n, extraRateE8: null, extraCents: 0 },
      ]);
    }
  });

  it("credits a partial payment at the locked rate, rounded down, and the rest up to exactly the amount", () => {
    const credits = creditPayments(quote, [onTime(10_000n), onTime(15_774n)], undefined);
    expect(credits.map((c) => c.quoteCents)).toEqual([970, 1530]);
    expect(total(credits)).toBe(2500);
    // The same split over two passes: the second knows what the first paid.
    const [second] = creditPayments({ ...quote, paidUnits: 10_000n }, [onTime(15_774n)], undefined);
    expect(second?.quoteCents).toBe(1530);
  });

  it("credits an overpayment on top: at the locked rate, or at the current one when it is lower", () => {
    const paid = [onTime(25_774n + 100_000n)];
    expect(total(creditPayments(quote, paid, rateToE8("97000")))).toBe(2500 + 9700);
    expect(total(creditPayments(quote, paid, rateToE8("200000")))).toBe(2500 + 9700);
    const [halved] = creditPayments(quote, paid, rateToE8("48500"));
    expect(halved).toEqual({
      quoteUnits: 25_774n,
      quoteCents: 2500,
      extraUnits: 100_000n,
      extraRateE8: rateToE8("48500"),
      extraCents: 4850,
    });
  });

  it("values a payment after the quote ended at the lower rate, all of it", () => {
    const [expired] = creditPayments(quote, [late(25_774n)], rateToE8("48500"));
    expect(expired).toEqual({
      quoteUnits: 0n,
      quoteCents: 0,
      extraUnits: 25_774n,
      extraRateE8: rateToE8("48500"),
      extraCents: 1250,
    });
    // A price above the locked rate does not lift it.
    expect(creditPayments(quote, [late(25_774n)], rateToE8("150000"))[0]?.extraCents).toBe(2500);
  });

  it("counts nothing more toward the quote once it is paid", () => {
    const credits = creditPayments(quote, [onTime(25_774n), onTime(25_774n)], rateToE8("97000"));
    expect(credits[1]).toMatchObject({
      quoteUnits: 0n,
      quoteCents: 0,
      extraUnits: 25_774n,
      extraCents: 2500,
    });
    const [after] = creditPayments({ ...quote, paidUnits: 25_774n }, [onTime(1_000n)], rateToE8("97000"));
    expect(after).toMatchObject({ quoteUnits: 0n, extraUnits: 1_000n });
  });

  it("without a current rate, stops before the first payment that needs one", () => {
    const credits = creditPayments(quote, [onTime(10_000n), late(5_000n), onTime(15_774n)], undefined);
    expect(credits).toHaveLength(1);
    expect(credits[0]?.quoteCents).toBe(970);
  });

  it("grows with what arrived, and never pays more than the locked rate would", () => {
    for (const current of ["1000", "48500", "97000", "300000"]) {
      let previous = 0;
      for (let units = 0n; units < 60_000n; units += 997n) {
        const credit = total(creditPayments(quote, [onTime(units)], rateToE8(current)));
        expect(credit).toBeGreaterThanOrEqual(previous);
        const atLocked = total(creditPayments(quote, [onTime(units)], rateToE8("97000")));
        expect(credit).toBeLessThanOrEqual(atLocked);
        previous = credit;
      }
      for (const units of [1n, 25_773n, 25_774n, 1_000_000n]) {
        const lateCredit = total(creditPayments(quote, [late(units)], rateToE8(current)));
        expect(lateCredit).toBeLessThanOrEqual(unitsToCents(units, rateToE8("97000"), 8));
        expect(lateCredit).toBeLessThanOrEqual(unitsToCents(units, rateToE8(current), 8));
      }
    }
  });
});
