import { describe, expect, it } from "vitest";
import { nodeBehind } from "./node-view";

describe("nodeBehind", () => {
  const now = new Date("2026-12-06T12:00:00Z");
  const litecoin = { minPeers: 1, maxTipAgeSeconds: 12 * 150, blockSeconds: 150 };
  const minutesAgo = (count: number) => new Date(now.getTime() - count * 60_000);
  const current = { tip: 500, peers: 8, headers: 500, tipAt: minutesAgo(3) };

  it("says nothing of a node with peers, its headers reached and a recent block", () => {
    expect(nodeBehind(current, litecoin, now)).toBeNull();
    // One block behind its headers is a block being validated, not a node falling behind.
    expect(nodeBehind({ ...current, headers: 501 }, litecoin, now)).toBeNull();
  });

  it("names missing peers first: they explain an old tip", () => {
    expect(nodeBehind({ ...current, peers: 0, tipAt: minutesAgo(90) }, litecoin, now)).toBe(
      "Its node has no peers: new blocks and payments do not reach it.",
    );
    expect(nodeBehind({ ...current, peers: 2 }, { ...litecoin, minPeers: 4 }, now)).toBe(
      "Its node has 2 of the 4 peers it should have: it may not see new blocks.",
    );
  });

  it("tells a node catching up from the chain it has heard of", () => {
    expect(nodeBehind({ ...current, headers: 620 }, litecoin, now)).toBe(
      "Its node is catching up: 120 blocks behind the chain it has heard of.",
    );
  });

  it("finds a node whose newest block is far older than the chain's pace, in the chain's own terms", () => {
    expect(nodeBehind({ ...current, tipAt: minutesAgo(47) }, litecoin, now)).toBe(
      "Its node's newest block is 47 minutes old, where one comes about every 2.5 minutes: it may be cut off from the network.",
    );
    const bitcoin = { minPeers: 1, maxTipAgeSeconds: 12 * 600, blockSeconds: 600 };
    expect(nodeBehind({ ...current, tipAt: minutesAgo(110) }, bitcoin, now)).toBeNull();
    expect(nodeBehind({ ...current, tipAt: minutesAgo(150) }, bitcoin, now)).toBe(
      "Its node's newest block is 3 hours old, where one comes about every 10 minutes: it may be cut off from the network.",
    );
  });

  it("checks nothing it was told not to, or that the node does not say (a regtest node alone by design)", () => {
    const alone = { ...current, peers: 0, tipAt: minutesAgo(600) };
    expect(nodeBehind(alone, { minPeers: 0, maxTipAgeSeconds: null, blockSeconds: 150 }, now)).toBeNull();
    expect(nodeBehind({ tip: 500, peers: null, headers: null, tipAt: null }, litecoin, now)).toBeNull();
  });
});
