/**
 * Traffic periods: the calendar months of a server's paid period, over which its outbound traffic is counted
 * against its plan's allowance. Pure.
 */
import { findPlan, TRAFFIC_POLICY } from "@/lib/catalog/catalog";
import { addMonths } from "../cycle";

export type Period = { start: Date; end: Date };

/** The month containing `at` among those whose boundaries are `anchor` plus or minus whole months. */
export function anchoredMonth(at: Date, anchor: Date): Period {
  const guess =
    (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (at.getUTCMonth() - anchor.getUTCMonth());
  for (let months = guess + 1; months >= guess - 2; months--) {
    const start = addMonths(anchor, months);
    if (start <= at) return { start, end: addMonths(anchor, months + 1) };
  }
  throw new Error("no month boundary found");
}

/**
 * The traffic period `at` falls in. Its boundaries are the server's expiry date plus or minus whole months,
 * so a monthly cycle has one period and an annual one twelve. A stored period (`latest`) runs to its end even
 * when a renewal moves the expiry meanwhile, and the next one starts where it ended: renewing early never
 * starts a fresh count in the middle of a month. The first period starts when the server was ordered.
 */
export function trafficPeriod(
  at: Date,
  server: { createdAt: Date; expiresAt: Date },
  latest?: Period,
): Period {
  if (latest && at < latest.end) return latest;
  const month = anchoredMonth(at, server.expiresAt);
  const floor = latest ? latest.end : server.createdAt;
  const start = month.start < floor && floor <= at ? floor : month.start;
  return { start, end: month.end };
}

const BYTES_PER_TB = 1_000_000_000_000;
const BYTES_PER_MB = 1_000_000;

/** A plan's monthly outbound allowance in bytes, capped by the deployment's TRAFFIC_ALLOWANCE_CAP_MB if set. */
export function allowanceBytes(plan: string, capMb: number | undefined): number {
  const planned = (findPlan(plan)?.trafficTb ?? 0) * BYTES_PER_TB;
  return capMb === undefined ? planned : Math.min(planned, capMb * BYTES_PER_MB);
}

/** The share of the allowance `percent` stands for, in bytes (rounded up: 80 % of 1 byte is 1 byte). */
export const thresholdBytes = (allowance: number, percent: number) => Math.ceil((allowance * percent) / 100);

/** The notice levels (80, 100) that `outbound` bytes have reached. */
export function levelsReached(outbound: number, allowance: number): number[] {
  return TRAFFIC_POLICY.noticePercents.filter((percent) => outbound >= thresholdBytes(allowance, percent));
}
