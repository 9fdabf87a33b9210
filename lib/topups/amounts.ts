/**
 * Integer conversions between USD cents and coin units. Rates are USD per whole coin with 8 decimals
 * (`rateE8`); nothing here touches a float, so a payment is always worth the same number of cents.
 */
import { formatUnits, parseUnits } from "viem";

export const RATE_DECIMALS = 8;

/** A decimal rate string such as "97000.12" as an integer scaled by 1e8. */
export function rateToE8(rate: string): bigint {
  if (!/^\d+(\.\d+)?$/.test(rate)) throw new RangeError(`not a decimal rate: ${rate}`);
  const scaled = parseUnits(rate, RATE_DECIMALS);
  if (scaled <= 0n) throw new RangeError("a rate must be positive");
  return scaled;
}

export const rateFromE8 = (rateE8: bigint): string => formatUnits(rateE8, RATE_DECIMALS);

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/**
 * The coin units to ask for `cents`: enough that the payment is worth at least the amount at the locked
 * rate, rounded up to `displayDecimals` so the amount stays short enough to type.
 */
export function quoteUnits(cents: number, rateE8: bigint, decimals: number, displayDecimals: number): bigint {
  const exact = ceilDiv(BigInt(cents) * 10n ** BigInt(decimals + RATE_DECIMALS), 100n * rateE8);
  const step = 10n ** BigInt(Math.max(0, decimals - displayDecimals));
  return ceilDiv(exact, step) * step;
}

/** What `units` are worth at the locked rate, in whole cents, rounded down (never credit a fraction). */
export function unitsToCents(units: bigint, rateE8: bigint, decimals: number): number {
  const cents = (units * rateE8 * 100n) / 10n ** BigInt(decimals + RATE_DECIMALS);
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("amount out of range");
  return Number(cents);
}

/** What the first `paidUnits` of the asked amount are worth: its worth at the locked rate, and exactly the
 * amount once it is paid in full (the quote rounded the asked units up). */
function quoteWorthCents(paidUnits: bigint, quote: Quote): number {
  if (paidUnits >= quote.requiredUnits) return quote.amountCents;
  return Math.min(unitsToCents(paidUnits, quote.lockedRateE8, quote.decimals), quote.amountCents);
}

/** The lower of the locked and the current rate: what coins outside the quote are worth. */
export const outsideQuoteRate = (lockedRateE8: bigint, currentRateE8: bigint) =>
  currentRateE8 < lockedRateE8 ? currentRateE8 : lockedRateE8;

/** A top-up's quote: the asked units for the asked amount at the locked rate, and how much of it is paid. */
export type Quote = {
  requiredUnits: bigint;
  amountCents: number;
  lockedRateE8: bigint;
  decimals: number;
  /** Units of the asked amount that payments credited earlier have paid. */
  paidUnits: bigint;
};

/** What one payment credited: the units that paid the asked amount, and the rest at its own rate. */
export type PaymentCredit = {
  quoteUnits: bigint;
  quoteCents: number;
  extraUnits: bigint;
  /** The rate the rest was valued at; null when nothing is left over. */
  extraRateE8: bigint | null;
  extraCents: number;
};

/**
 * What payments credit as they count, in the order they arrived. A payment made while the quote held
 * (before `expires_at`; cancelling ends it) pays what the asked amount still lacks at the locked rate, and
 * exactly the amount once all of it is paid. Everything else, beyond the asked amount or after the quote
 * ended, is worth what the coins are worth when credited, at most what they were worth at the locked rate:
 * the locked rate is no free option on a falling price. With no current rate (`undefined`), the list stops
 * before the first payment that needs one; the rest waits for a later pass.
 */
export function creditPayments(
  quote: Quote,
  payments: { units: bigint; withinQuote: boolean }[],
  currentRateE8: bigint | undefined,
): PaymentCredit[] {
  const credits: PaymentCredit[] = [];
  let paid = quote.paidUnits;
  for (const { units, withinQuote } of payments) {
    const lacking = quote.requiredUnits > paid ? quote.requiredUnits - paid : 0n;
    const quoteUnits = withinQuote ? (units < lacking ? units : lacking) : 0n;
    const extraUnits = units - quoteUnits;
    if (extraUnits > 0n && currentRateE8 === undefined) break;
    const extraRateE8 =
      extraUnits > 0n && currentRateE8 !== undefined
        ? outsideQuoteRate(quote.lockedRateE8, currentRateE8)
        : null;
    credits.push({
      quoteUnits,
      quoteCents: quoteWorthCents(paid + quoteUnits, quote) - quoteWorthCents(paid, quote),
      extraUnits,
      extraRateE8,
      extraCents: extraRateE8 === null ? 0 : unitsToCents(extraUnits, extraRateE8, quote.decimals),
    });
    paid += quoteUnits;
  }
  return credits;
}
