import { randomBytes } from "node:crypto";
import bcoin from "bcoin";
import { describe, expect, it } from "vitest";
import { blockOutputs, transactionOutputs, UnsupportedSerialization } from "./raw-block";

type BcoinTx = { txid(): string; toRaw(): Buffer; outputs: { value: number; script: { toRaw(): Buffer } }[] };

/** A transaction serialized by bcoin (an independent implementation), with or without witnesses. */
function transaction(options: { witness: boolean; outputs: Buffer[]; inputs?: number }): BcoinTx {
  const mtx = new bcoin.MTX();
  for (let i = 0; i < (options.inputs ?? 2); i++) {
    mtx.inputs.push(
      new bcoin.Input({
        prevout: new bcoin.Outpoint(randomBytes(32).toString("hex"), i),
        script: bcoin.Script.fromRaw(randomBytes(options.witness ? 0 : 107)),
        witness: options.witness ? bcoin.Witness.fromItems([randomBytes(72), randomBytes(33)]) : undefined,
        sequence: 0xfffffffd,
      }),
    );
  }
  options.outputs.forEach((script, n) => {
    mtx.outputs.push(new bcoin.Output({ script: bcoin.Script.fromRaw(script), value: 1000 * (n + 1) + n }));
  });
  mtx.locktime = 123;
  return mtx.toTX();
}

const p2wpkh = () => Buffer.concat([Buffer.from("0014", "hex"), randomBytes(20)]);
const p2pkh = () =>
  Buffer.concat([Buffer.from("76a914", "hex"), randomBytes(20), Buffer.from("88ac", "hex")]);
const all = () => true;

describe("blockOutputs", () => {
  it("reads Bitcoin's genesis block: the coinbase id, its 50 BTC and its script", () => {
    const genesis = bcoin.Network.get("main").genesisBlock as string;
    const [output, ...rest] = blockOutputs(genesis, all);
    expect(rest).toEqual([]);
    expect(output).toMatchObject({
      txid: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
      n: 0,
      value: 5_000_000_000n,
    });
    expect(output?.script).toMatch(
      /^4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38.*ac$/,
    );
  });

  it("matches bcoin's ids, values and scripts in a block of segwit and legacy transactions", () => {
    const ours = p2wpkh();
    const big = Buffer.concat([Buffer.from("6a4d2c01", "hex"), randomBytes(300)]); // 0xfd length prefix
    const txs = [
      transaction({ witness: false, inputs: 1, outputs: [p2pkh()] }),
      transaction({ witness: true, outputs: [p2wpkh(), ours, big] }),
      transaction({ witness: false, outputs: [ours, p2pkh()] }),
      transaction({ witness: true, inputs: 300, outputs: [p2pkh()] }), // 0xfd input count
    ];
    const block = new bcoin.Block({
      version: 0x20000000,
      prevBlock: "00".repeat(32),
      merkleRoot: "00".repeat(32),
      time: 1,
      bits: 0x207fffff,
      nonce: 0,
    });
    block.txs.push(...txs);
    const hex = (block.toRaw() as Buffer).toString("hex");

    const everything = blockOutputs(hex, all);
    const expected = txs.flatMap((tx) =>
      tx.outputs.map((output, n) => ({
        txid: tx.txid(),
        n,
        value: BigInt(output.value),
        script: output.script.toRaw().toString("hex"),
      })),
    );
    expect(everything).toEqual(expected);

    const mine = ours.toString("hex");
    expect(blockOutputs(hex, (script) => script === mine)).toEqual([
      { txid: txs[1]?.txid(), n: 1, value: 2001n, script: mine },
      { txid: txs[2]?.txid(), n: 0, value: 1000n, script: mine },
    ]);
  });

  it("refuses, rather than misreads, what it does not know: other flags, cut-off data", () => {
    const tx = transaction({ witness: true, outputs: [p2wpkh()] })
      .toRaw()
      .toString("hex");
    // Litecoin's MWEB transactions use flag 0x08 (the watcher reads those blocks as verbose JSON).
    const mweb = `${tx.slice(0, 10)}08${tx.slice(12)}`;
    expect(() => transactionOutputs(mweb, all)).toThrow(UnsupportedSerialization);
    expect(() => transactionOutputs(tx.slice(0, -10), all)).toThrow(UnsupportedSerialization);
    expect(() => blockOutputs("00".repeat(79), all)).toThrow(UnsupportedSerialization);
  });
});

describe("transactionOutputs", () => {
  it("reads one serialized transaction, as getrawtransaction returns it", () => {
    const tx = transaction({ witness: true, outputs: [p2pkh(), p2wpkh()] });
    const found = transactionOutputs(tx.toRaw().toString("hex"), (script) => script.startsWith("0014"));
    expect(found).toEqual([
      { txid: tx.txid(), n: 1, value: 2001n, script: tx.outputs[1]?.script.toRaw().toString("hex") },
    ]);
  });
});
