import { describe, expect, it } from "vitest";
import { createPace, IDLE_MS, REST_MS, REST_SERVING_MS, SLICE_MS } from "./pace";

/** A pace on a hand-moved clock that records whether each call rested or only took a turn. */
function harness(embedded: boolean, serving = () => false) {
  let time = 0;
  const calls: string[] = [];
  const pace = createPace({
    embedded: async () => embedded,
    serving,
    clock: () => time,
    rest: async (ms) => {
      calls.push(`rest ${ms}`);
      time += ms;
    },
    turn: async () => {
      calls.push("turn");
    },
  });
  return { pace, calls, work: (ms: number) => (time += ms) };
}

describe("background pace", () => {
  it("on the embedded database, rests once a slice of busy time is used up", async () => {
    const { pace, calls, work } = harness(true);
    await pace();
    work(SLICE_MS / 2 - 1);
    await pace();
    work(SLICE_MS / 2 + 1);
    await pace();
    expect(calls).toEqual(["turn", "turn", `rest ${REST_MS}`]);
  });

  it("counts afresh after a rest, and does not count idle gaps as work", async () => {
    const { pace, calls, work } = harness(true);
    await pace();
    work(SLICE_MS);
    await pace();
    work(SLICE_MS - 1);
    await pace();
    work(IDLE_MS + 1);
    await pace();
    expect(calls).toEqual(["turn", `rest ${REST_MS}`, "turn", "turn"]);
  });

  it("on PostgreSQL, only gives requests their turn", async () => {
    const { pace, calls, work } = harness(false);
    for (let i = 0; i < 5; i++) {
      await pace();
      work(SLICE_MS * 2);
    }
    expect(calls).toEqual(Array(5).fill("turn"));
  });

  it("on the embedded database, rests three times as long while requests are being served", async () => {
    let serving = false;
    const { pace, calls, work } = harness(true, () => serving);
    await pace();
    work(SLICE_MS);
    await pace();
    serving = true;
    work(SLICE_MS);
    await pace();
    expect(calls).toEqual(["turn", `rest ${REST_MS}`, `rest ${REST_SERVING_MS}`]);
  });

  it("on PostgreSQL, rests after each slice while requests are being served, else takes a turn", async () => {
    let serving = true;
    const { pace, calls, work } = harness(false, () => serving);
    await pace();
    work(SLICE_MS);
    await pace();
    work(SLICE_MS / 2);
    await pace();
    serving = false;
    work(SLICE_MS);
    await pace();
    expect(calls).toEqual(["turn", `rest ${REST_MS}`, "turn", "turn"]);
  });
});
