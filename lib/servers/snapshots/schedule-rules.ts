import type { ScheduleFrequency, SnapshotKind, SnapshotState } from "@/lib/db/types";
import { countsAgainstLimit } from "./rules";

/** ISO weekdays as the API names them: 1 = Monday ... 7 = Sunday. */
export const WEEKDAYS = [
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const isoWeekday = (name: Weekday) => WEEKDAYS.indexOf(name) + 1;
export const weekdayName = (iso: number): Weekday | undefined => WEEKDAYS[iso - 1];

/**
 * The first run of a schedule strictly after `after`: the next `hour`:00 UTC (daily), or the next such hour on
 * the ISO `weekday` (weekly).
 */
export function nextRun(
  schedule: { frequency: ScheduleFrequency; hour: number; weekday: number | null },
  after: Date,
): Date {
  const candidate = new Date(
    Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), schedule.hour),
  );
  if (candidate.getTime() <= after.getTime()) candidate.setUTCDate(candidate.getUTCDate() + 1);
  if (schedule.frequency === "weekly" && schedule.weekday !== null) {
    const today = ((candidate.getUTCDay() + 6) % 7) + 1;
    candidate.setUTCDate(candidate.getUTCDate() + ((schedule.weekday - today + 7) % 7));
  }
  return candidate;
}

type Kept = { id: number; kind: SnapshotKind; state: SnapshotState; createdAt: Date };

/**
 * What a scheduled run does to make room within the server's limit: the oldest automatic snapshots to delete
 * (never any other kind), or `full` when only others fill the limit and nothing may be deleted.
 */
export function rotation(existing: Kept[], limit: number): { remove: Kept[]; full: boolean } {
  const counted = existing.filter(countsAgainstLimit);
  const automatic = counted
    .filter((snapshot) => snapshot.kind === "automatic" && snapshot.state === "available")
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
  const excess = counted.length - limit + 1;
  if (excess <= 0) return { remove: [], full: false };
  if (automatic.length < excess) return { remove: [], full: true };
  return { remove: automatic.slice(0, excess), full: false };
}
