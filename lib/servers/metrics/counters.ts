/**
 * From two readings of a domain's counters to what it used in between. The counters belong to one run of the
 * domain (one QEMU process: a guest's own reboot keeps it, a stop and start or a reinstall makes a new one),
 * so they fall back to zero when the domain restarts. Pure.
 */
import type { DomainCounters } from "./domstats";

/** The monotonic counters kept between readings. */
export type RunCounters = Omit<DomainCounters, "memoryUsedKib">;

export const COUNTER_FIELDS = ["cpuMs", "rxBytes", "txBytes", "readBytes", "writeBytes"] as const;

export type Usage = RunCounters & { memoryUsedKib: number | undefined };

/**
 * What the domain used since `previous`:
 * - no previous reading: nothing is counted (the counters' start is unknown: a domain found running when
 *   sampling first begins may have run for months); this reading is the baseline;
 * - any counter lower than before: a new run began since, and everything it counted is new (counted from
 *   zero). What the old run moved after its last reading is not seen: at most one sampling interval's worth;
 * - otherwise the difference.
 * Nothing is ever counted twice: each byte is in exactly one difference of one run.
 */
export function usageSince(
  previous: RunCounters | undefined,
  current: DomainCounters,
): { usage: Usage | undefined; newRun: boolean } {
  if (!previous) return { usage: undefined, newRun: false };
  const newRun = COUNTER_FIELDS.some((field) => current[field] < previous[field]);
  const usage = { memoryUsedKib: current.memoryUsedKib } as Usage;
  for (const field of COUNTER_FIELDS)
    usage[field] = newRun ? current[field] : current[field] - previous[field];
  return { usage, newRun };
}
