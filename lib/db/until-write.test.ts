import { describe, expect, it } from "vitest";
import { createUntilWriteCache } from "./until-write";

/** A cache on a hand-moved epoch and clock, with a loader that counts its calls and returns fresh data. */
function harness(options: { enabled?: boolean; maxEntries?: number } = {}) {
  const state = { epoch: 0, tables: {} as Record<string, number>, time: 1_000, loads: 0, data: "v1" };
  const reuse = createUntilWriteCache({
    enabled: async () => options.enabled ?? true,
    epoch: (tables?: readonly string[]) => (tables ? (state.tables[tables.join()] ?? 0) : state.epoch),
    clock: () => state.time,
    maxEntries: options.maxEntries ?? 100,
  });
  const load = async () => {
    state.loads += 1;
    return state.data;
  };
  return { state, reuse, load };
}

describe("reads reused until the next write", () => {
  it("reuses a value while no write happened, and loads again after one", async () => {
    const { state, reuse, load } = harness();
    expect(await reuse("k", load)).toBe("v1");
    expect(await reuse("k", load)).toBe("v1");
    expect(state.loads).toBe(1);
    state.data = "v2";
    state.epoch += 2; // a write
    expect(await reuse("k", load)).toBe("v2");
    expect(state.loads).toBe(2);
  });

  it("never keeps a value whose load overlapped a write", async () => {
    const { state, reuse } = harness();
    const loadDuringWrite = async () => {
      state.epoch += 1; // the write starts while the read runs
      state.loads += 1;
      return state.data;
    };
    await reuse("k", loadDuringWrite);
    state.data = "v2";
    state.epoch += 1; // the write ends
    expect(await reuse("k", async () => state.data)).toBe("v2");
  });

  it("loads again once the value's own deadline has passed, though nothing was written", async () => {
    const { state, reuse, load } = harness();
    const staleAt = () => 1_500;
    await reuse("k", load, staleAt);
    state.time = 1_499;
    await reuse("k", load, staleAt);
    expect(state.loads).toBe(1);
    state.time = 1_500;
    state.data = "after the deadline";
    expect(await reuse("k", load, staleAt)).toBe("after the deadline");
    expect(state.loads).toBe(2);
  });

  it("keeps values apart by key", async () => {
    const { reuse } = harness();
    expect(await reuse("a", async () => "for a")).toBe("for a");
    expect(await reuse("b", async () => "for b")).toBe("for b");
    expect(await reuse("a", async () => "not loaded")).toBe("for a");
  });

  it("always loads where another process may write (PostgreSQL)", async () => {
    const { state, reuse, load } = harness({ enabled: false });
    await reuse("k", load);
    await reuse("k", load);
    expect(state.loads).toBe(2);
  });

  it("drops the least recently loaded entry when full", async () => {
    const { state, reuse, load } = harness({ maxEntries: 2 });
    await reuse("a", load);
    await reuse("b", load);
    await reuse("c", load); // "a" goes
    expect(state.loads).toBe(3);
    await reuse("b", load);
    await reuse("c", load);
    expect(state.loads).toBe(3);
    await reuse("a", load);
    expect(state.loads).toBe(4);
  });

  it("keeps a read that names its tables until one of them is written, whatever else is", async () => {
    const { state, reuse, load } = harness();
    await reuse("k", load, undefined, ["a"]);
    state.epoch += 2; // a write elsewhere
    state.tables.b = 2;
    await reuse("k", load, undefined, ["a"]);
    expect(state.loads).toBe(1);
    state.data = "v2";
    state.tables.a = 2;
    expect(await reuse("k", load, undefined, ["a"])).toBe("v2");
    expect(state.loads).toBe(2);
  });

  it("shares one load among requests that ask while it runs, unless a write came between", async () => {
    const { state, reuse } = harness();
    let finish: (value: string) => void = () => {};
    const slow = () => {
      state.loads += 1;
      return new Promise<string>((resolve) => {
        finish = resolve;
      });
    };
    const first = reuse("k", slow);
    const second = reuse("k", slow);
    await Promise.resolve();
    finish("v1");
    expect(await Promise.all([first, second])).toEqual(["v1", "v1"]);
    expect(state.loads).toBe(1);
    state.epoch += 2;
    const third = reuse("k", slow);
    await Promise.resolve();
    state.epoch += 2; // a write while the third loads: a fourth must not take its answer
    const fourth = reuse("k", async () => "v3");
    finish("v2");
    expect(await third).toBe("v2");
    expect(await fourth).toBe("v3");
  });
});
