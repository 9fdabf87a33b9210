/**
 * Exact decimal strings and integers of a coin's smallest units, both ways. Client-safe and dependency-free:
 * the dashboard's top-up pages use it, and viem's equivalents would add about 2 kB to their first load.
 */

/** A plain non-negative decimal string: digits, and a point only with digits after it ("0.5", not ".5"). */
export const isDecimal = (value: string): boolean => /^\d+(\.\d+)?$/.test(value);

/**
 * A non-negative decimal string as an integer of 10^-decimals units ("0.0005", 8 -> 50000n); undefined when it
 * is not such a string or has more significant decimals than `decimals`.
 */
export function decimalToUnits(amount: string, decimals: number): bigint | undefined {
  if (!isDecimal(amount)) return undefined;
  const [whole = "0", fraction = ""] = amount.split(".");
  const significant = fraction.replace(/0+$/, "");
  if (significant.length > decimals) return undefined;
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(significant.padEnd(decimals, "0") || "0");
}

/** An integer of 10^-decimals units as a decimal string, without trailing zeros (30n, 4 -> "0.003"). */
export function unitsToDecimal(units: bigint, decimals: number): string {
  const sign = units < 0n ? "-" : "";
  const digits = (units < 0n ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}
