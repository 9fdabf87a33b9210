/**
 * The smallest and largest top-up the API accepts, apart from the catalog's plans and prices so that the
 * top-up pages and the shortfall link load these two numbers without the whole catalog.
 */
import type { Cents } from "@/lib/util/cents";

export const TOPUP_MIN_CENTS: Cents = 2500;
export const TOPUP_MAX_CENTS: Cents = 200000;

/**
 * The top-up that covers a shortfall: the deficit itself, but never below the smallest top-up the API accepts
 * (nor above the largest; a bigger gap takes several top-ups).
 */
export function topupToCover(deficitCents: Cents): Cents {
  return Math.min(TOPUP_MAX_CENTS, Math.max(TOPUP_MIN_CENTS, deficitCents));
}
