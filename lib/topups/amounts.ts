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

/**
 * The total a top-up should have credited once `confirmedUnits` have arrived. Paying what was asked
 * credits exactly the amount; anything more is credited at the locked rate on top; anything less is
 * credited for what it is worth, so no payment is ever lost.
 */
export function creditTargetCents(input: {
  confirmedUnits: bigint;
  requiredUnits: bigint;
  amountCents: number;
  rateE8: bigint;
  decimals: number;
}): number {
  const { confirmedUnits, requiredUnits, amountCents, rateE8, decimals } = input;
  if (confirmedUnits <= 0n) return 0;
  if (confirmedUnits >= requiredUnits) {
    return amountCents + unitsToCents(confirmedUnits - requiredUnits, rateE8, decimals);
  }
  return Math.min(unitsToCents(confirmedUnits, rateE8, decimals), amountCents);
}

/** Units as a decimal string in whole coins, keeping at least `minDecimals` digits after the point. */
export function formatCoinAmount(units: bigint, decimals: number, minDecimals: number): string {
  const text = formatUnits(units, decimals);
  const [whole, fraction = ""] = text.split(".");
  return minDecimals > 0 || fraction ? `${whole}.${fraction.padEnd(minDecimals, "0")}` : `${whole}`;
}
