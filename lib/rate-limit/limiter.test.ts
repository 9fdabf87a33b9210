import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/api/errors";
import type { Database } from "@/lib/db/client";
import { rateLimitCounters } from "@/lib/db/schema";
import { openMemoryDatabase } from "@/lib/testing/memory-db";
import { DatabaseWindowLimiter, FixedWindowLimiter } from "./limiter";

describe("FixedWindowLimiter", () => {
  it("allows `limit` events per window per key, then refuses until the window ends", async () => {
    let now = 1_000_000;
    const limiter = new FixedWindowLimiter("test", { limit: 3, windowSeconds: 60 }, () => now);
    const first = [];
    for (let i = 0; i < 3; i++) first.push((await limiter.hit("a")).allowed);
    expect(first).toEqual([true, true, true]);
    expect(await limiter.hit("a")).toEqual({ allowed: false, remaining: 0, resetSeconds: 60 });
    expect((await limiter.hit("b")).allowed).toBe(true);
    now += 30_000;
    expect((await limiter.hit("a")).resetSeconds).toBe(30);
    now += 30_001;
    expect(await limiter.hit("a")).toEqual({ allowed: true, remaining: 2, resetSeconds: 60 });
  });
});

describe("a window used up, as this process saw it", () => {
  it("is answered from memory until the window ends, and forgotten by a refund or a reset", async () => {
    let now = 0;
    const limiter = new FixedWindowLimiter("test", { limit: 2, windowSeconds: 60 }, () => now);
    await limiter.hit("a");
    expect(limiter.exhausted("a")).toBeUndefined();
    await limiter.hit("a");
    expect(limiter.exhausted("a")).toBe(60);
    expect(limiter.exhausted("b")).toBeUndefined();
    now += 20_000;
    expect(limiter.exhausted("a")).toBe(40);
    await limiter.refund("a");
    expect(limiter.exhausted("a")).toBeUndefined();
    await limiter.hit("a");
    expect(limiter.exhausted("a")).toBe(40);
    now += 40_000;
    expect(limiter.exhausted("a")).toBeUndefined();
    await limiter.hit("a");
    await limiter.hit("a");
    await limiter.reset("a");
    expect(limiter.exhausted("a")).toBeUndefined();
  });
});

describe("FixedWindowLimiter bounds and refunds", () => {
  it("gives back a refunded event", async () => {
    const limiter = new FixedWindowLimiter("test", { limit: 1, windowSeconds: 10 }, () => 0);
    expect((await limiter.hit("a")).allowed).toBe(true);
    await limiter.refund("a");
    expect((await limiter.hit("a")).allowed).toBe(true);
    expect((await limiter.hit("a")).allowed).toBe(false);
  });

  it("a reset ends the key's window at once, and only that key's", async () => {
    const limiter = new FixedWindowLimiter("test", { limit: 1, windowSeconds: 3600 }, () => 0);
    await limiter.hit("a");
    await limiter.hit("b");
    expect((await limiter.hit("a")).allowed).toBe(false);
    await limiter.reset("a");
    expect((await limiter.hit("a")).allowed).toBe(true);
    expect((await limiter.hit("b")).allowed).toBe(false);
  });

  it("keeps at most maxKeys windows, dropping the oldest", async () => {
    const limiter = new FixedWindowLimiter("test", { limit: 1, windowSeconds: 3600 }, () => 0, 3);
    for (const key of ["a", "b", "c", "d"]) await limiter.hit(key);
    // "a" was dropped to make room, so it starts a fresh window; "d" is still counted.
    expect((await limiter.hit("a")).allowed).toBe(true);
    expect((await limiter.hit("d")).allowed).toBe(false);
  });
});

describe("DatabaseWindowLimiter (the SQL store, here on an embedded PostgreSQL)", () => {
  let database: Database;
  let close: () => Promise<void>;
  const open = async () => database;
  const rows = () =>
    database
      .select({ name: rateLimitCounters.name, key: rateLimitCounters.key, count: rateLimitCounters.count })
      .from(rateLimitCounters)
      .orderBy(rateLimitCounters.name, rateLimitCounters.key);

  // Starting an embedded database is slow on a loaded machine.
  beforeAll(async () => ({ db: database, close } = await openMemoryDatabase()), 120_000);
  afterAll(() => close());

  it("counts per key in fixed windows that start with a key's first event, then refuses", async () => {
    let now = 1_000_000_000;
    const limiter = new DatabaseWindowLimiter(
      "window",
      { limit: 2, windowSeconds: 60 },
      open,
      "closed",
      () => now,
    );
    expect(await limiter.hit("a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 });
    now += 15_000;
    expect(await limiter.hit("a")).toEqual({ allowed: true, remaining: 0, resetSeconds: 45 });
    expect(await limiter.hit("a")).toEqual({ allowed: false, remaining: 0, resetSeconds: 45 });
    // Used up: known here without asking the store again.
    expect(limiter.exhausted("a")).toBe(45);
    expect((await limiter.hit("b")).allowed).toBe(true);
    now += 45_000; // the window of "a" has ended: the next event starts a fresh one
    expect(await limiter.hit("a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 });
    expect((await rows()).filter((row) => row.name === "window")).toEqual([
      { name: "window", key: "a", count: 1 },
      { name: "window", key: "b", count: 1 },
    ]);
  });

  it("holds one limit for several instances hitting at once", async () => {
    // Two limiter objects stand for two app processes: they share only the table.
    const spec = { limit: 5, windowSeconds: 3600 };
    const one = new DatabaseWindowLimiter("shared", spec, open, "closed");
    const two = new DatabaseWindowLimiter("shared", spec, open, "closed");
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 ? one : two).hit("203.0.113.9")),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(5);
    const [row] = (await rows()).filter((r) => r.name === "shared");
    expect(row?.count).toBe(16);
  });

  it("gives back refunded events, never below zero", async () => {
    const limiter = new DatabaseWindowLimiter("refund", { limit: 1, windowSeconds: 3600 }, open, "closed");
    expect((await limiter.hit("a")).allowed).toBe(true);
    await limiter.refund("a");
    await limiter.refund("a");
    expect((await limiter.hit("a")).allowed).toBe(true);
    expect((await limiter.hit("a")).allowed).toBe(false);
  });

  it("a reset ends the key's window for every instance, and only that key's", async () => {
    const one = new DatabaseWindowLimiter("reset", { limit: 1, windowSeconds: 3600 }, open, "closed");
    const two = new DatabaseWindowLimiter("reset", { limit: 1, windowSeconds: 3600 }, open, "closed");
    await one.hit("a");
    await one.hit("b");
    expect((await two.hit("a")).allowed).toBe(false);
    await one.reset("a");
    expect((await two.hit("a")).allowed).toBe(true);
    expect((await two.hit("b")).allowed).toBe(false);
  });

  it("sweeps finished windows", async () => {
    let now = 1_000_000_000;
    const limiter = new DatabaseWindowLimiter(
      "sweep",
      { limit: 1, windowSeconds: 10 },
      open,
      "closed",
      () => now,
    );
    await limiter.hit("old");
    now += 120_000;
    await limiter.hit("new");
    await vi.waitFor(async () => {
      expect((await rows()).filter((row) => row.name === "sweep").map((row) => row.key)).toEqual(["new"]);
    });
  });

  it("fails closed with a 503, or open, when the counters cannot be reached", async () => {
    const unreachable = async (): Promise<Database> => {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    };
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const spec = { limit: 1, windowSeconds: 60 };
      const closed = new DatabaseWindowLimiter("closed", spec, unreachable, "closed");
      const refused = await closed.hit("a").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({
        status: 503,
        code: "service_unavailable",
        headers: { "Retry-After": "1" },
      });
      const open = new DatabaseWindowLimiter("open", spec, unreachable, "open");
      expect((await open.hit("a")).allowed).toBe(true);
      expect((await open.hit("a")).allowed).toBe(true);
      await expect(closed.refund("a")).resolves.toBeUndefined();
    } finally {
      quiet.mockRestore();
    }
  });
});
