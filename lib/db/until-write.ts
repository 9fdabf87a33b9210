import "server-only";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";
import { databaseHandle } from "./client";
import { createVersionedCache } from "./versioned-cache";
import { currentWriteEpoch } from "./write-epoch";

/**
 * Reads reused until the next write, on the embedded database only.
 *
 * Every write to PGlite passes through this process and moves the write epoch (write-epoch.ts), so a value
 * loaded while the epoch stood at N is exactly what a fresh read returns while it still stands at N, unless
 * the value depends on the clock: such a value also names the moment it goes stale (a session's expiry, a
 * top-up's deadline). On PostgreSQL another instance may write at any time, so every read loads.
 */
type Deps = {
  enabled: () => Promise<boolean>;
  epoch: () => number;
  clock: () => number;
  maxEntries: number;
};

export type ReuseUntilWrite = <T>(
  key: string,
  load: () => Promise<T>,
  staleAt?: (value: T) => number,
) => Promise<T>;

export function createUntilWriteCache(deps: Deps): ReuseUntilWrite {
  const entries = createVersionedCache(deps.maxEntries);
  return async function reuse<T>(
    key: string,
    load: () => Promise<T>,
    staleAt: (value: T) => number = () => Number.POSITIVE_INFINITY,
  ): Promise<T> {
    if (!(await deps.enabled())) return load();
    // Read before loading: a write that lands while the load runs leaves the stored value already stale.
    const epoch = deps.epoch();
    const hit = entries.get<T>(key, epoch, deps.clock());
    if (hit) return hit.value;
    const value = await load();
    entries.set(key, epoch, value, staleAt(value));
    return value;
  };
}

/** The process's cache (see createUntilWriteCache); the clock is the service's, which tests can move. */
export const reuseUntilWrite: ReuseUntilWrite = (key, load, staleAt) =>
  processWide("db.until-write", () =>
    createUntilWriteCache({
      enabled: async () => (await databaseHandle()).kind === "pglite",
      epoch: currentWriteEpoch,
      clock: () => now().getTime(),
      maxEntries: 5_000,
    }),
  )(key, load, staleAt);

/** The earliest of `times` (ISO 8601) still ahead of now: when a value built from them may read differently. */
export function firstAhead(times: (string | null)[]): number {
  const current = now().getTime();
  let first = Number.POSITIVE_INFINITY;
  for (const time of times) {
    const at = time === null ? Number.NaN : Date.parse(time);
    if (at > current && at < first) first = at;
  }
  return first;
}
