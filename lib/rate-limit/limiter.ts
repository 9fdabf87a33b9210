import { and, eq, gt, lt, sql } from "drizzle-orm";
import { ApiError } from "@/lib/api/errors";
import type { Database } from "@/lib/db/client";
import { rateLimitCounters } from "@/lib/db/schema";
import type { RateLimitSpec } from "./config";

export type RateLimitResult = { allowed: boolean; remaining: number; resetSeconds: number };

/**
 * What a limit does when its counters cannot be reached: `closed` refuses with 503 (for guesses at secrets
 * and for paths that move money, which need the database anyway), `open` lets the request through uncounted
 * (for work that does not need the database, so an outage of ours does not break it).
 */
export type StoreFailure = "open" | "closed";

/** A fixed-window limit: counts events per key and says whether each is within the limit. */
export interface RateLimiter {
  readonly name: string;
  readonly spec: RateLimitSpec;
  /** Counts one event for `key` and says whether it is within the limit. */
  hit(key: string): Promise<RateLimitResult>;
  /** Takes back one counted event, for work that failed on our side and should not cost the client. */
  refund(key: string): Promise<void>;
  /** Ends `key`'s window now, for when what filled it can no longer happen (its credential is gone). */
  reset(key: string): Promise<void>;
  /**
   * Seconds until `key` may be counted again when this process has seen its window used up, else
   * undefined: answered from memory, for refusing before any other work (or the store) is touched.
   */
  exhausted(key: string): number | undefined;
}

/**
 * Keys whose window this process saw used up, until the window ends: what `exhausted` answers from. Bounded
 * like the in-memory windows: past `maxKeys`, the oldest go first.
 */
class ExhaustedKeys {
  private readonly until = new Map<string, number>();
  constructor(
    private readonly now: () => number,
    private readonly maxKeys = 100_000,
  ) {}

  note(key: string, result: RateLimitResult): void {
    if (result.remaining > 0) return;
    if (this.until.size >= this.maxKeys) {
      const oldest = this.until.keys().next().value;
      if (oldest !== undefined) this.until.delete(oldest);
    }
    this.until.set(key, this.now() + result.resetSeconds * 1000);
  }

  seconds(key: string): number | undefined {
    const until = this.until.get(key);
    if (until === undefined) return undefined;
    const left = until - this.now();
    if (left > 0) return Math.ceil(left / 1000);
    this.until.delete(key);
    return undefined;
  }

  forget(key: string): void {
    this.until.delete(key);
  }
}

type Window = { count: number; resetAt: number };

/**
 * Fixed-window counters held in this process's memory, keyed per client: the store on PGlite, where one
 * process owns the database, so the limits are per instance.
 */
export class FixedWindowLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;
  private readonly used: ExhaustedKeys;

  constructor(
    readonly name: string,
    readonly spec: RateLimitSpec,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {
    this.used = new ExhaustedKeys(now, maxKeys);
  }

  async hit(key: string): Promise<RateLimitResult> {
    const window = this.current(key);
    window.count += 1;
    const result = this.result(window);
    this.used.note(key, result);
    return result;
  }

  async refund(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.count > 0) window.count -= 1;
    this.used.forget(key);
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
    this.used.forget(key);
  }

  exhausted(key: string): number | undefined {
    return this.used.seconds(key);
  }

  private result(window: Window): RateLimitResult {
    const resetSeconds = Math.max(1, Math.ceil((window.resetAt - this.now()) / 1000));
    return {
      allowed: window.count <= this.spec.limit,
      remaining: Math.max(0, this.spec.limit - window.count),
      resetSeconds,
    };
  }

  private current(key: string): Window {
    const now = this.now();
    this.sweep(now);
    const existing = this.windows.get(key);
    if (existing && existing.resetAt > now) return existing;
    const fresh = { count: 0, resetAt: now + this.spec.windowSeconds * 1000 };
    this.windows.set(key, fresh);
    return fresh;
  }

  /**
   * Drops finished windows now and then; past `maxKeys` live windows the oldest go first (a Map iterates in
   * insertion order), so a flood of new addresses cannot grow memory without bound.
   */
  private sweep(now: number) {
    if (now - this.lastSweep >= 60_000) {
      this.lastSweep = now;
      for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    }
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}

/** How often one process deletes finished windows from the counters table. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Fixed-window counters in the database, for PostgreSQL deployments: every app instance counts in the same
 * row, so a limit holds for the deployment, not per instance. One atomic upsert per event; as in memory, a
 * key's window starts with its first event, and an event after the window's end starts the next one.
 */
export class DatabaseWindowLimiter implements RateLimiter {
  private nextSweep = 0;
  private readonly used: ExhaustedKeys;

  constructor(
    readonly name: string,
    readonly spec: RateLimitSpec,
    private readonly database: () => Promise<Database>,
    readonly onStoreFailure: StoreFailure,
    private readonly now: () => number = Date.now,
  ) {
    this.used = new ExhaustedKeys(now);
  }

  exhausted(key: string): number | undefined {
    return this.used.seconds(key);
  }

  async hit(key: string): Promise<RateLimitResult> {
    const now = this.now();
    const at = new Date(now);
    const end = new Date(now + this.spec.windowSeconds * 1000);
    let row: { count: number; expiresAt: Date } | undefined;
    try {
      const database = await this.database();
      const c = rateLimitCounters;
      const finished = sql`${c.expiresAt} <= ${at.toISOString()}`;
      [row] = await database
        .insert(c)
        .values({ name: this.name, key, windowStart: at, count: 1, expiresAt: end })
        .onConflictDoUpdate({
          target: [c.name, c.key],
          set: {
            count: sql`CASE WHEN ${finished} THEN 1 ELSE ${c.count} + 1 END`,
            windowStart: sql`CASE WHEN ${finished} THEN excluded.window_start ELSE ${c.windowStart} END`,
            expiresAt: sql`CASE WHEN ${finished} THEN excluded.expires_at ELSE ${c.expiresAt} END`,
          },
        })
        .returning({ count: c.count, expiresAt: c.expiresAt });
    } catch (error) {
      return this.storeFailed(error, end.getTime() - now);
    }
    this.sweep(now);
    const count = row?.count ?? 1;
    const resetAt = row?.expiresAt.getTime() ?? end.getTime();
    const result = {
      allowed: count <= this.spec.limit,
      remaining: Math.max(0, this.spec.limit - count),
      resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
    };
    this.used.note(key, result);
    return result;
  }

  async refund(key: string): Promise<void> {
    this.used.forget(key);
    const c = rateLimitCounters;
    try {
      const database = await this.database();
      await database
        .update(c)
        .set({ count: sql`${c.count} - 1` })
        .where(
          and(eq(c.name, this.name), eq(c.key, key), gt(c.expiresAt, new Date(this.now())), gt(c.count, 0)),
        );
    } catch (error) {
      // A refund lost to an outage costs the client one event of a window that ends anyway.
      console.error(`rate limit ${this.name}: refund not recorded:`, errorNames(error));
    }
  }

  async reset(key: string): Promise<void> {
    this.used.forget(key);
    const c = rateLimitCounters;
    try {
      const database = await this.database();
      await database.delete(c).where(and(eq(c.name, this.name), eq(c.key, key)));
    } catch (error) {
      // The window then runs to its end, as it would have without the reset.
      console.error(`rate limit ${this.name}: reset not recorded:`, errorNames(error));
    }
  }

  private storeFailed(error: unknown, msLeft: number): RateLimitResult {
    console.error(
      `rate limit ${this.name}: counters unreachable, failing ${this.onStoreFailure}:`,
      errorNames(error),
    );
    if (this.onStoreFailure === "open") {
      return {
        allowed: true,
        remaining: this.spec.limit,
        resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
      };
    }
    throw new ApiError(
      503,
      "service_unavailable",
      "The service is briefly unavailable; retry shortly.",
      {},
      { "Retry-After": "1" },
    );
  }

  /** Deletes finished windows at most once a minute per limit, in the background of a hit. */
  private sweep(now: number) {
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL_MS;
    void this.database()
      .then((database) =>
        database.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, new Date(now))),
      )
      .catch((error: unknown) => console.error(`rate limit ${this.name}: sweep failed:`, errorNames(error)));
  }
}

/** Names and codes only: a failed query's message carries its parameters (client addresses). */
function errorNames(error: unknown): string {
  const parts: string[] = [];
  for (let current = error; current instanceof Error; current = (current as { cause?: unknown }).cause) {
    const code = (current as { code?: unknown }).code;
    parts.push(`${current.name}${typeof code === "string" ? ` [${code}]` : ""}`);
  }
  return parts.join(" <- ") || "unknown error";
}
