/** Money is held as integer US cents everywhere; these helpers are the only place it meets decimals. */

export type Cents = number;

/** Converts cents to the USD number the API shows (two decimals at most). */
export function centsToUsd(cents: Cents): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a whole number of cents: ${cents}`);
  return cents / 100;
}

/**
 * Converts a USD amount from a request to cents, refusing anything finer than a cent
 * (a float such as 25.1 is accepted as 2510 cents; 25.001 is not an amount of money).
 */
export function usdToCents(usd: number): Cents | undefined {
  if (!Number.isFinite(usd)) return undefined;
  const cents = Math.round(usd * 100);
  if (Math.abs(cents - usd * 100) > 1e-6) return undefined;
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/** Multiplies cents by a factor given in basis points (10000 = 1.0), rounding half up to the cent. */
export function applyBasisPoints(cents: Cents, basisPoints: number): Cents {
  if (!Number.isSafeInteger(cents) || !Number.isSafeInteger(basisPoints)) {
    throw new RangeError("cents and basis points must be integers");
  }
  return Math.floor((cents * basisPoints + 5000) / 10000);
}

/** Formats cents as a USD string for people, e.g. 1234 -> "$12.34". */
export function formatUsd(cents: Cents): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}

/** An amount the API shows in USD (exact to the cent) back as cents. */
export const apiUsdToCents = (usd: number): Cents => Math.round(usd * 100);

/** An amount the API shows in USD, formatted for people. */
export const formatApiUsd = (usd: number): string => formatUsd(apiUsdToCents(usd));
