import { describe, expect, it } from "vitest";
import { FixedWindowLimiter } from "./limiter";

describe("FixedWindowLimiter", () => {
  it("allows `limit` events per window per key, then refuses until the window ends", () => {
    let now = 1_000_000;
    const limiter = new FixedWindowLimiter("test", { limit: 3, windowSeconds: 60 }, () => now);
    expect([1, 2, 3].map(() => limiter.hit("a").allowed)).toEqual([true, true, true]);
    const refused = limiter.hit("a");
    expect(refused).toEqual({ allowed: false, remaining: 0, resetSeconds: 60 });
    expect(limiter.hit("b").allowed).toBe(true);
    now += 30_000;
    expect(limiter.hit("a").resetSeconds).toBe(30);
    now += 30_001;
    expect(limiter.hit("a")).toEqual({ allowed: true, remaining: 2, resetSeconds: 60 });
  });
});

describe("FixedWindowLimiter bounds and refunds", () => {
  it("gives back a refunded event", () => {
    const limiter = new FixedWindowLimiter("test", { limit: 1, windowSeconds: 10 }, () => 0);
    expect(limiter.hit("a").allowed).toBe(true);
    limiter.refund("a");
    expect(limiter.hit("a").allowed).toBe(true);
    expect(limiter.hit("a").allowed).toBe(false);
  });

  it("keeps at most maxKeys windows, dropping the oldest", () => {
    const limiter = new FixedWindowLimiter("test", { limit: 1, windowSeconds: 3600 }, () => 0, 3);
    for (const key of ["a", "b", "c", "d"]) limiter.hit(key);
    // "a" was dropped to make room, so it starts a fresh window; "d" is still counted.
    expect(limiter.hit("a").allowed).toBe(true);
    expect(limiter.hit("d").allowed).toBe(false);
  });
});
