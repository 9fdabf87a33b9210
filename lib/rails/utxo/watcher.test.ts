import { describe, expect, it } from "vitest";
import { coinToUnits, UtxoWatcher } from "./watcher";

describe("coinToUnits", () => {
  it("turns the node's 8-decimal JSON amounts into exact satoshis", () => {
    expect(coinToUnits(0.1)).toBe(10_000_000n);
    expect(coinToUnits(0.29)).toBe(29_000_000n); // 0.29 * 1e8 is 28999999.999999996 in floating point
    expect(coinToUnits(1.00000001)).toBe(100_000_001n);
    expect(coinToUnits(20_999_999.9769)).toBe(2_099_999_997_690_000n);
  });
});

describe("UtxoWatcher.match", () => {
  const ours = "0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2";
  const watched = new Map([[ours, 7]]);
  const place = { blockNumber: 120, blockHash: "ab".repeat(32), confirmations: 3 };

  it("finds every output paying a watched script, keyed by transaction and output index", () => {
    const tx = {
      txid: "cd".repeat(32),
      vout: [
        { value: 0.5, n: 0, scriptPubKey: { hex: ours } },
        { value: 12.3, n: 1, scriptPubKey: { hex: "0014".padEnd(44, "1") } },
        { value: 0.25, n: 2, scriptPubKey: { hex: ours } },
      ],
    };
    expect(UtxoWatcher.match(tx, watched, place)).toEqual([
      { topupId: 7, txHash: tx.txid, logIndex: 0, amountUnits: 50_000_000n, ...place },
      { topupId: 7, txHash: tx.txid, logIndex: 2, amountUnits: 25_000_000n, ...place },
    ]);
  });

  it("ignores zero-value outputs and scripts that only contain ours", () => {
    const tx = {
      txid: "ef".repeat(32),
      vout: [
        { value: 0, n: 0, scriptPubKey: { hex: ours } },
        { value: 1, n: 1, scriptPubKey: { hex: `6a${ours}` } },
      ],
    };
    expect(UtxoWatcher.match(tx, watched, place)).toEqual([]);
  });
});
