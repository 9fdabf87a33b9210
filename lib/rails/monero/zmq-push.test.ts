import { describe, expect, it } from "vitest";
import { CHAIN_TOPIC, chainMainBlocks } from "./zmq-push";

/** A block as monerod 0.18 publishes it on `json-full-chain_main` (regtest), trimmed to what is read. */
const block = (height: number, timestamp: number) => ({
  major_version: 16,
  minor_version: 16,
  timestamp,
  prev_id: "41".repeat(32),
  nonce: 0,
  miner_tx: { version: 2, unlock_time: height + 60, inputs: [{ gen: { height } }], outputs: [] },
  tx_hashes: [],
});

describe("chainMainBlocks: the blocks of a monerod chain_main message", () => {
  it("reads each block's height from its coinbase input, and its time", () => {
    const message = `${CHAIN_TOPIC}:${JSON.stringify([block(4, 1_795_867_606), block(5, 1_795_867_607)])}`;
    expect(chainMainBlocks(message)).toEqual([
      { height: 4, time: new Date(1_795_867_606_000) },
      { height: 5, time: new Date(1_795_867_607_000) },
    ]);
  });

  it("reads nothing from another topic, broken JSON, or a block without a height", () => {
    expect(chainMainBlocks(`json-minimal-chain_main:{"first_height":4,"ids":[]}`)).toEqual([]);
    expect(chainMainBlocks(`${CHAIN_TOPIC}:[{`)).toEqual([]);
    expect(chainMainBlocks(`${CHAIN_TOPIC}:[{"timestamp":1}]`)).toEqual([]);
  });
});
