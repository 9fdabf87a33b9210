import "server-only";
import { performance } from "node:perf_hooks";
import { and, asc, eq, gt, gte, inArray } from "drizzle-orm";
import { db } from "@/lib/db/client";
import { topups } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import { depositSettings } from "./config";
import { watchedTopups } from "./sightings";

/** A watched top-up as a watcher matches payments against it. */
export type WatchedEntry = {
  topupId: number;
  coin: string;
  derivationIndex: number | null;
  confirmationsRequired: number;
  /** When the top-up closed (business time, ms), or null while pending; it is watched until the window ends. */
  closedAtMs: number | null;
};

type Row = {
  id: number;
  coin: string;
  address: string;
  derivationIndex: number | null;
  confirmationsRequired: number;
  closedAt: Date | null;
  createdAt: Date;
};

/**
 * Rows created (or closed) less than this long ago are read again on every sync: a top-up's transaction
 * may commit after one with a higher id (or a later closing) was already read, and it must not be skipped
 * for that. Creating or closing a top-up is one short transaction; PostgreSQL ends one left idle after 60 s.
 */
const RECENT_MS = 2 * 60_000;
/**
 * Watched rows read again per sync, in id order and wrapping around: a check behind the incremental reads
 * that adds what they missed and drops what is no longer watched, a few milliseconds a pass instead of
 * reading the whole set at once (100,000 rows: about a second and a half on the embedded database).
 */
const SWEEP_ROWS = 1_000;
/**
 * The first load reads the watched set in id order, this many rows a query, and stops once a sync has spent
 * LOAD_BUDGET_MS on it; the next sync goes on where it stopped. A watcher scans nothing until the whole set is
 * in (its cursor waits, so no payment is missed): at 100,000 addresses that is a few passes after a start,
 * where one query for them all held the pass (and, on the embedded database, the request thread) for 1-3 s.
 */
const LOAD_BATCH = 2_000;
const LOAD_BUDGET_MS = 400;

/**
 * A string key made by concatenation (hex digits appended one byte at a time) is kept by V8 as a tree of
 * small pieces, about 550 bytes for an output script; copied through a Buffer it is one flat string of a
 * tenth of that (measured: 55 MB against 10 MB for 100,000 keys). Other keys are kept as they are.
 */
function compact<K>(key: K): K {
  return typeof key === "string" ? (Buffer.from(key, "latin1").toString("latin1") as K) : key;
}

const columns = {
  id: topups.id,
  coin: topups.coin,
  address: topups.depositAddress,
  derivationIndex: topups.derivationIndex,
  confirmationsRequired: topups.confirmationsRequired,
  closedAt: topups.closedAt,
  createdAt: topups.createdAt,
};

/**
 * The deposit addresses a watcher looks for, held in memory and keyed the way the watcher meets them on
 * chain (an EVM address in lower case, an output script, a Monero subaddress index), so matching a
 * transfer is one map lookup whatever the number watched. The whole set is read once, in time-bounded
 * slices over the first syncs (`sync` is false until it is all in); after that a sync reads only the top-ups created since the last one (ids above those read two minutes
 * ago or more) and those that closed since (an index on `closed_at`), drops closed ones once their
 * late-payment window has passed, and re-reads the next SWEEP_ROWS watched rows in id order to mend
 * anything the incremental reads could have missed. A match is still confirmed against the database
 * (`stillWatched`), so the set may hold a top-up a little past its window, never lack one that is watched.
 */
export class WatchedAddresses<K> {
  private byKey = new Map<K, WatchedEntry>();
  /** Top-up id -> its key, so a re-read row finds its entry without deriving the key again. */
  private keyById = new Map<number, K>();
  private perCoin = new Map<string, number>();
  /** Every id at or below this was read at least RECENT_MS after its row was created. */
  private idFloor = 0;
  /** Rows read while still recent (id -> creation time): they raise idFloor once they are RECENT_MS old. */
  private recent = new Map<number, number>();
  /** Rows created at or after this (ms) count as recent during the current sync. */
  private recentSinceMs = 0;
  private closingsSince: Date | undefined;
  private loaded = false;
  /** While loading: the highest id read so far, and when the load began (business time, ms). */
  private loadedUpToId = 0;
  private loadStartedMs: number | undefined;
  private sweepAfterId = 0;
  private earliestClosingMs = Number.POSITIVE_INFINITY;
  /** The highest derivation index ever added (Monero creates subaddresses up to it). */
  highestDerivationIndex = -1;

  /**
   * @param networks the `deposit_network` values watched
   * @param keyOf the key a top-up is matched by; undefined for an address this chain can never pay
   * @param load rows per query and time per sync of the first load
   */
  constructor(
    private readonly networks: readonly string[],
    private readonly keyOf: (row: { address: string; derivationIndex: number | null }) => K | undefined,
    private readonly load = { batch: LOAD_BATCH, budgetMs: LOAD_BUDGET_MS },
  ) {}

  get size(): number {
    return this.byKey.size;
  }

  get(key: K): WatchedEntry | undefined {
    return this.byKey.get(key);
  }

  /** How many watched top-ups are in `coin`. */
  count(coin: string): number {
    return this.perCoin.get(coin) ?? 0;
  }

  /**
   * Brings the set up to date: new top-ups, closings, and top-ups whose late-payment window ended. While the
   * first load is still going, reads its next slice instead. Resolves to whether the whole set has been
   * read: until then a watcher must not scan (it would miss payments to the rest).
   */
  async sync(): Promise<boolean> {
    const database = await db();
    const businessNow = now();
    this.recentSinceMs = Date.now() - RECENT_MS;
    const watched = and(watchedTopups(), inArray(topups.network, [...this.networks]));
    if (!this.loaded) {
      this.loadStartedMs ??= businessNow.getTime();
      const deadline = performance.now() + this.load.budgetMs;
      do {
        const slice = await database
          .select(columns)
          .from(topups)
          .where(and(watched, gt(topups.id, this.loadedUpToId)))
          .orderBy(asc(topups.id))
          .limit(this.load.batch);
        for (const row of slice) this.put(row);
        this.loadedUpToId = slice[slice.length - 1]?.id ?? this.loadedUpToId;
        if (slice.length < this.load.batch) this.loaded = true;
      } while (!this.loaded && performance.now() < deadline);
      // Rows read in an earlier slice may have closed since: the first sync after the load reads every
      // closing since the load began.
      this.closingsSince = new Date(this.loadStartedMs - RECENT_MS);
      this.raiseIdFloor();
      this.dropClosedBefore(businessNow.getTime() - depositSettings().latePaymentWindowHours * 3_600_000);
      return this.loaded;
    }
    for (const row of await database
      .select(columns)
      .from(topups)
      .where(and(watched, gt(topups.id, this.idFloor)))) {
      this.put(row);
    }
    const closings = await database
      .select(columns)
      .from(topups)
      .where(
        and(
          eq(topups.method, "deposit"),
          inArray(topups.network, [...this.networks]),
          gte(topups.closedAt, this.closingsSince ?? new Date(0)),
        ),
      );
    for (const row of closings) this.put(row);
    const swept = await database
      .select(columns)
      .from(topups)
      .where(and(watched, gt(topups.id, this.sweepAfterId)))
      .orderBy(asc(topups.id))
      .limit(SWEEP_ROWS);
    this.mend(swept);
    this.closingsSince = new Date(businessNow.getTime() - RECENT_MS);
    this.raiseIdFloor();
    this.dropClosedBefore(businessNow.getTime() - depositSettings().latePaymentWindowHours * 3_600_000);
    return true;
  }

  /** The swept rows are the watched ids in their range: entries there that are not among them go. */
  private mend(swept: Row[]) {
    const from = this.sweepAfterId;
    const last = swept.length < SWEEP_ROWS ? Number.POSITIVE_INFINITY : (swept[swept.length - 1]?.id ?? 0);
    const present = new Set<number>();
    for (const row of swept) {
      present.add(row.id);
      this.put(row);
    }
    for (const id of this.keyById.keys()) {
      if (id > from && id <= last && !present.has(id)) this.remove(id);
    }
    this.sweepAfterId = last === Number.POSITIVE_INFINITY ? 0 : last;
  }

  private put(row: Row) {
    const key = this.keyById.get(row.id) ?? compact(this.keyOf(row));
    if (key === undefined) return;
    const closedAtMs = row.closedAt?.getTime() ?? null;
    const existing = this.byKey.get(key);
    if (existing?.topupId === row.id) {
      existing.closedAtMs = closedAtMs;
    } else {
      if (existing) this.remove(existing.topupId);
      this.byKey.set(key, {
        topupId: row.id,
        coin: row.coin,
        derivationIndex: row.derivationIndex,
        confirmationsRequired: row.confirmationsRequired,
        closedAtMs,
      });
      this.keyById.set(row.id, key);
      this.perCoin.set(row.coin, this.count(row.coin) + 1);
    }
    if (closedAtMs !== null && closedAtMs < this.earliestClosingMs) this.earliestClosingMs = closedAtMs;
    if (row.derivationIndex !== null && row.derivationIndex > this.highestDerivationIndex) {
      this.highestDerivationIndex = row.derivationIndex;
    }
    const createdAtMs = row.createdAt.getTime();
    if (createdAtMs >= this.recentSinceMs) this.recent.set(row.id, createdAtMs);
    else if (row.id > this.idFloor) this.idFloor = row.id;
  }

  private remove(topupId: number) {
    const key = this.keyById.get(topupId);
    if (key === undefined) return;
    const entry = this.byKey.get(key);
    if (entry?.topupId === topupId) {
      this.byKey.delete(key);
      this.perCoin.set(entry.coin, this.count(entry.coin) - 1);
    }
    this.keyById.delete(topupId);
  }

  private raiseIdFloor() {
    for (const [id, createdAtMs] of this.recent) {
      if (createdAtMs < this.recentSinceMs && id > this.idFloor) this.idFloor = id;
    }
    for (const id of this.recent.keys()) if (id <= this.idFloor) this.recent.delete(id);
  }

  /** Drops top-ups closed before `cutoffMs`; a loop over the set only when one of them is due. */
  private dropClosedBefore(cutoffMs: number) {
    if (this.earliestClosingMs >= cutoffMs) return;
    this.earliestClosingMs = Number.POSITIVE_INFINITY;
    for (const entry of this.byKey.values()) {
      if (entry.closedAtMs === null) continue;
      if (entry.closedAtMs < cutoffMs) this.remove(entry.topupId);
      else if (entry.closedAtMs < this.earliestClosingMs) this.earliestClosingMs = entry.closedAtMs;
    }
  }
}

/** Of the given top-ups, those still watched now (the set may lag the database by one sync). */
export async function stillWatched(topupIds: Iterable<number>): Promise<Set<number>> {
  const ids = [...new Set(topupIds)];
  if (ids.length === 0) return new Set();
  const database = await db();
  const rows = await database
    .select({ id: topups.id })
    .from(topups)
    .where(and(watchedTopups(), inArray(topups.id, ids)));
  return new Set(rows.map((row) => row.id));
}
