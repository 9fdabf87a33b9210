import "server-only";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";
import { databaseHandle } from "./client";
import { createVersionedCache } from "./versioned-cache";
import { currentWriteEpoch, tablesWriteEpoch } from "./write-epoch";

/**
 * Reads reused until the next write, on the embedded database only.
 *
 * Every write to PGlite passes through this process and moves the write epoch (write-epoch.ts), so a value
 * loaded while the epoch stood at N is exactly what a fresh read returns while it still stands at N, unless
 * the value depends on the clock: such a value also names the moment it goes stale (a session's expiry, a
 * top-up's deadline). On PostgreSQL another instance may write at any time, so every read loads.
 *
 * A read that names the tables it reads is kept until one of those is written (write-epoch.ts), not until
 * any write at all: under background work (builds, watchers, metrics) something is written many times a
 * second. Requests that ask for the same value while it loads share that one load.
 */
type Deps = {
  enabled: () => Promise<boolean>;
  /** The version of `tables`, or of the whole database when none are named. */
  epoch: (tables?: readonly string[]) => number;
  clock: () => number;
  maxEntries: number;
};

export type ReuseUntilWrite = <T>(
  key: string,
  load: () => Promise<T>,
  staleAt?: (value: T) => number,
  tables?: readonly string[],
) => Promise<T>;

export function createUntilWriteCache(deps: Deps): ReuseUntilWrite {
  const entries = createVersionedCache(deps.maxEntries);
  const loading = new Map<string, { epoch: number; value: Promise<unknown> }>();
  return async function reuse<T>(
    key: string,
    load: () => Promise<T>,
    staleAt: (value: T) => number = () => Number.POSITIVE_INFINITY,
    tables?: readonly string[],
  ): Promise<T> {
    if (!(await deps.enabled())) return load();
    // Read before loading: a write that lands while the load runs leaves the stored value already stale.
    const epoch = deps.epoch(tables);
    const hit = entries.get<T>(key, epoch, deps.clock());
    if (hit) return hit.value;
    // A load begun at this same version saw no write since: its answer is the one this load would give.
    const pending = loading.get(key);
    if (pending?.epoch === epoch) {
      const value = (await pending.value) as T;
      if (deps.clock() < staleAt(value)) return value;
      return load();
    }
    const value = load();
    loading.set(key, { epoch, value });
    try {
      const loaded = await value;
      entries.set(key, epoch, loaded, staleAt(loaded));
      return loaded;
    } finally {
      if (loading.get(key)?.value === value) loading.delete(key);
    }
  };
}

/** The process's cache (see createUntilWriteCache); the clock is the service's, which tests can move. */
export const reuseUntilWrite: ReuseUntilWrite = (key, load, staleAt, tables) =>
  processWide("db.until-write", () =>
    createUntilWriteCache({
      enabled: async () => (await databaseHandle()).kind === "pglite",
      epoch: (tables) => (tables ? tablesWriteEpoch(tables) : currentWriteEpoch()),
      clock: () => now().getTime(),
      maxEntries: 5_000,
    }),
  )(key, load, staleAt, tables);

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
