import type { RateLimitSpec } from "@/lib/config/env";

export type RateLimitResult = { allowed: boolean; remaining: number; resetSeconds: number };

type Window = { count: number; resetAt: number };

/**
 * Fixed-window counters held in this process's memory, keyed per client.
 * Counts are per app instance; the documented limits are per instance.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(
    readonly name: string,
    readonly spec: RateLimitSpec,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** Counts one event for `key` and says whether it is within the limit. */
  hit(key: string): RateLimitResult {
    const window = this.current(key);
    window.count += 1;
    return this.result(window);
  }

  /** Takes back one counted event, for work that failed on our side and should not cost the client. */
  refund(key: string): void {
    const window = this.windows.get(key);
    if (window && window.count > 0) window.count -= 1;
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
