import { describe, expect, it } from "vitest";
import { groupState, HOST_DOWN_AFTER_MS, hostState, overallState, watcherState } from "./states";

const AT = new Date("2026-06-10T12:00:00Z");
const ago = (ms: number) => new Date(AT.getTime() - ms);
const STALE = 90_000;

describe("the states the status page shows", () => {
  it("a host: up while its last reading answered recently, degraded at first failure or without a recent one, then down", () => {
    expect(hostState({ readAt: ago(10_000), failingSince: null }, AT, STALE)).toBe("up");
    expect(hostState({ readAt: ago(STALE + 1), failingSince: null }, AT, STALE)).toBe("degraded");
    expect(hostState({ readAt: null, failingSince: null }, AT, STALE)).toBe("degraded");
    expect(hostState(undefined, AT, STALE)).toBe("degraded");
    expect(hostState({ readAt: ago(20_000), failingSince: ago(15_000) }, AT, STALE)).toBe("degraded");
    expect(hostState({ readAt: ago(600_000), failingSince: ago(HOST_DOWN_AFTER_MS) }, AT, STALE)).toBe(
      "down",
    );
    expect(hostState({ readAt: null, failingSince: ago(HOST_DOWN_AFTER_MS + 1) }, AT, STALE)).toBe("down");
  });

  it("a watcher: its node answers, it starts or lags, or its node fails", () => {
    expect(watcherState("ok")).toBe("up");
    expect(watcherState("starting")).toBe("degraded");
    expect(watcherState("stale")).toBe("degraded");
    expect(watcherState("behind")).toBe("degraded");
    expect(watcherState("unreachable")).toBe("down");
  });

  it("a location's hosts, and the whole service", () => {
    expect(groupState(["up", "up"])).toBe("up");
    expect(groupState(["up", "down"])).toBe("degraded");
    expect(groupState(["degraded", "down"])).toBe("degraded");
    expect(groupState(["down", "down"])).toBe("down");
    expect(overallState(["up"], ["up", "up"])).toBe("up");
    expect(overallState([], ["up"])).toBe("up");
    // One coin's node down leaves the rest working; no location with a host up stops every order.
    expect(overallState(["up"], ["down"])).toBe("degraded");
    expect(overallState(["up", "down"], ["up"])).toBe("degraded");
    expect(overallState(["down", "down"], ["up"])).toBe("down");
  });
});
