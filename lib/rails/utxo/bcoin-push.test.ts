import bcoin from "bcoin";
import { describe, expect, it } from "vitest";
import { chainEntryBlock } from "./bcoin-push";

describe("chainEntryBlock: a block as bcoin's `chain connect` sends it", () => {
  it("reads the height and time of a chain entry serialized by bcoin itself", () => {
    const entry = new bcoin.ChainEntry();
    entry.height = 812_345;
    entry.time = 1_795_867_605;
    expect(chainEntryBlock(entry.toRaw())).toEqual({
      height: 812_345,
      time: new Date(1_795_867_605_000),
    });
  });

  it("refuses what is too short to be one", () => {
    expect(chainEntryBlock(Buffer.alloc(83))).toBeUndefined();
  });
});
