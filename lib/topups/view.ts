/**
 * How the dashboard reads a top-up: which state to show, what is still missing, the amount a person typed.
 * Pure functions on the API's shapes, shared by the pages and their tests (no server code here).
 */
import { TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "@/lib/catalog/topup-limits";
import { formatApiUsd, formatUsd } from "@/lib/util/cents";
import { decimalToUnits, isDecimal, unitsToDecimal } from "@/lib/util/decimal";

type TopupLike = {
  status: "pending" | "completed" | "expired" | "cancelled";
  deposit_amount: string;
  received_amount: string;
  confirmed_amount: string;
};

export type DepositPhase = "waiting" | "partial" | "confirming" | "completed" | "expired" | "cancelled";

/** A top-up in one of these states never changes again: polling stops there. */
export const isFinalStatus = (status: TopupLike["status"]) => status !== "pending";

/** Decimals written in a non-negative decimal string ("0.0005" -> 4); anything else is refused. */
function writtenDecimals(value: string): number {
  if (!isDecimal(value)) throw new RangeError(`not a decimal amount: ${value}`);
  return value.split(".")[1]?.length ?? 0;
}

/** A decimal string as units of 10^-scale, for a scale at least its own written decimals. */
const unitsAt = (value: string, scale: number): bigint => decimalToUnits(value, scale) ?? 0n;

/** `a - b` for non-negative decimal strings, never below zero ("0.0005" - "0.0002" = "0.0003"). */
export function decimalShortfall(asked: string, received: string): string {
  const scale = Math.max(writtenDecimals(asked), writtenDecimals(received));
  const difference = unitsAt(asked, scale) - unitsAt(received, scale);
  return unitsToDecimal(difference > 0n ? difference : 0n, scale);
}

/** Half of a decimal string at its own precision, rounded down ("0.00000003" -> "0.00000001"). */
export function halfOf(value: string): string {
  const scale = writtenDecimals(value);
  return unitsToDecimal(unitsAt(value, scale) / 2n, scale);
}

const isZero = (value: string) => unitsAt(value, writtenDecimals(value)) === 0n;

/** The state a person should see, and for a partial payment how much is still to send. */
export function depositPhase(topup: TopupLike): { phase: DepositPhase; missing?: string } {
  if (topup.status === "completed") return { phase: "completed" };
  if (topup.status === "expired") return { phase: "expired" };
  if (topup.status === "cancelled") return { phase: "cancelled" };
  if (isZero(topup.received_amount)) return { phase: "waiting" };
  const missing = decimalShortfall(topup.deposit_amount, topup.received_amount);
  if (!isZero(missing)) return { phase: "partial", missing };
  return { phase: "confirming" };
}

export { networkLabel } from "@/lib/rails/registry";

type CreditedPart = { kind: "quote" | "excess" | "late"; amount: string; rate_usd: string; usd: number };

const PART_WORDS: Record<CreditedPart["kind"], string> = {
  quote: "of the asked amount, at the locked",
  excess: "over the asked amount, at",
  late: "after the quote ended, at",
};

/** One credited part of a payment in words: "0.00025 BTC over the asked amount, at $50,000/BTC: $12.50". */
export function creditedPartText(part: CreditedPart, coin: string): string {
  // Display only: the rate is shown as the API gave it, grouped for reading.
  const [whole = "0", fraction] = part.rate_usd.split(".");
  const rate = `$${Number(whole).toLocaleString("en-US")}${fraction ? `.${fraction}` : ""}`;
  return `${part.amount} ${coin} ${PART_WORDS[part.kind]} ${rate}/${coin}: ${formatApiUsd(part.usd)}`;
}

/** Time left as m:ss (or h:mm:ss), never negative. */
export function formatRemaining(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/**
 * The top-up amount as typed, checked as the API checks it: USD between the limits, whole cents.
 * Returns cents, or a message fit to show next to the field.
 */
export function parseTopupAmount(text: string): { cents: number } | { error: string } {
  const range = `Enter an amount from ${formatUsd(TOPUP_MIN_CENTS)} to ${formatUsd(TOPUP_MAX_CENTS)}.`;
  const trimmed = text.trim().replace(/^\$/, "");
  if (!isDecimal(trimmed)) return { error: range };
  const [whole = "", fraction = ""] = trimmed.split(".");
  if (fraction.length > 2) return { error: "Use whole cents (at most two decimals)." };
  if (whole.length > 9) return { error: range };
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  if (cents < TOPUP_MIN_CENTS || cents > TOPUP_MAX_CENTS) return { error: range };
  return { cents };
}
