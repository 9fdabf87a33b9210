import { describe, expect, it } from "vitest";
import { etherTransfers } from "./watcher";
import { newHead } from "./ws-push";

const US = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";

describe("etherTransfers: ether moved in one transaction's call trace", () => {
  it("finds the top-level transfer and internal ones, each with its depth-first place", () => {
    const trace = {
      type: "CALL",
      to: OTHER,
      value: "0x0",
      calls: [
        { type: "STATICCALL", to: US },
        { type: "CALL", to: US.toUpperCase().replace("0X", "0x"), value: "0x64" },
        { type: "CALL", to: OTHER, value: "0x1", calls: [{ type: "CALL", to: US, value: "0x2" }] },
      ],
    };
    expect(etherTransfers(trace)).toEqual([
      { to: US, value: 100n, ordinal: 2 },
      { to: OTHER, value: 1n, ordinal: 3 },
      { to: US, value: 2n, ordinal: 4 },
    ]);
    expect(etherTransfers({ type: "CALL", to: US, value: "0xde0b6b3a7640000" })).toEqual([
      { to: US, value: 10n ** 18n, ordinal: 0 },
    ]);
  });

  it("leaves out transfers undone by a revert of their own frame or of any frame above", () => {
    const trace = {
      type: "CALL",
      to: OTHER,
      value: "0x5",
      calls: [
        {
          type: "CALL",
          to: OTHER,
          error: "execution reverted",
          calls: [{ type: "CALL", to: US, value: "0x7" }],
        },
        { type: "CALL", to: US, value: "0x8", error: "out of gas" },
        { type: "DELEGATECALL", to: US, value: "0x5" },
        { type: "SELFDESTRUCT", to: US, value: "0x9" },
      ],
    };
    expect(etherTransfers(trace)).toEqual([
      { to: OTHER, value: 5n, ordinal: 0 },
      { to: US, value: 9n, ordinal: 5 },
    ]);
    expect(etherTransfers({ type: "CALL", to: US, value: "0x5", error: "execution reverted" })).toEqual([]);
  });
});

describe("newHead: a block as an eth_subscribe newHeads notification gives it", () => {
  it("reads its number and time from hex quantities", () => {
    expect(newHead({ number: "0x1b4", timestamp: "0x6a2a1b95" })).toEqual({
      height: 436,
      time: new Date(0x6a2a1b95 * 1000),
    });
    expect(newHead({})).toBeUndefined();
  });
});
