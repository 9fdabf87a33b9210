import "server-only";
import { readCursor, saveCursor } from "../deposits/cursor";
import type { NodeExpectations, NodeView } from "../deposits/node-view";
import type { PushLink } from "../deposits/push";
import {
  dropPayment,
  type ObservedPayment,
  observePayments,
  recordConfirmingBlockTimes,
  setConfirmations,
  trackedPayments,
  unconfirmPayment,
} from "../deposits/sightings";
import { stillWatched, WatchedAddresses } from "../deposits/watched-set";
import type { DepositWatcher, WatcherNode } from "../deposits/watcher";
import type { AddressNet } from "../family";
import { p2wpkhScriptHex, type UtxoChain } from "./address";
import { blockOutputs, type RawOutput, transactionOutputs, UnsupportedSerialization } from "./raw-block";
import { BitcoinRpc, RpcError } from "./rpc";

/** Blocks read per poll at most, so a watcher that was down catches up in bounded steps. */
const MAX_BLOCKS_PER_POLL = 50;
/** On its first run the watcher starts this far behind the tip, to see payments made just before. */
const FIRST_RUN_LOOKBACK = 6;
/** Blocks below the tip whose payments are re-checked against the best chain (reorgs deeper are flagged). */
const REORG_WATCH_DEPTH = 100;
/**
 * New mempool transactions read per poll at most: the first poll of a busy node's mempool (tens of
 * thousands) is spread over several, so a poll stays short and well inside its lease. Blocks see every
 * payment anyway; the mempool only shows them sooner.
 */
const MEMPOOL_READS_PER_POLL = 2_000;

/** Output script (hex) -> the top-up it pays. */
type ScriptLookup = { get(script: string): number | undefined };

type Output = { value: number; n: number; scriptPubKey: { hex: string } };
type Transaction = { txid: string; vout: Output[] };
type Block = { hash: string; height: number; tx: Transaction[] };
type Place = { blockNumber: number | null; blockHash: string | null; confirmations: number };

/** Coin amounts come as JSON numbers with 8 decimals; the integer satoshi count is exact after rounding. */
export const coinToUnits = (value: number): bigint => BigInt(Math.round(value * 1e8));

export type UtxoWatcherOptions = {
  network: UtxoChain;
  rpcUrl: string;
  cookieFile?: string;
  net: AddressNet;
  /** The node's push (`-blocknotify` through the notify listener, or bcoin's socket), if configured. */
  push?: PushLink;
  /** What health expects of the node: its peers and the age of its newest block. */
  expectations?: NodeExpectations;
};

/** Core's and bcoin's getblockchaininfo, the fields read; `time` (the tip's) only in recent Bitcoin Core. */
type ChainInfo = { chain: string; blocks: number; headers?: number; bestblockhash: string; time?: number };

/**
 * Watches a Bitcoin Core-style node (bitcoind, litecoind, bcoin) without a node wallet: walks blocks from
 * the stored cursor and reads the mempool, matching outputs against the scriptPubKey of our P2WPKH deposit
 * addresses. Each payment keeps its block hash; confirmations are counted from the tip, and a payment whose
 * block is no longer at its height on the best chain drops back to unconfirmed (the sightings flag it if it
 * had already counted) and its blocks are scanned again.
 */
export class UtxoWatcher implements DepositWatcher {
  readonly demo = false;
  readonly name: string;
  readonly networks: readonly string[];
  private readonly rpc: BitcoinRpc;
  /** bcoin's getblock takes (hash, verbose, details) instead of Core's (hash, verbosity). */
  private dialect: "core" | "bcoin" | undefined;
  /** Raw reads the parser refused; after a few the node is read as verbose JSON only. */
  private rawFailures = 0;
  /** The node's newest block as last read: its time is read again only when the tip changes. */
  private tipTime: { hash: string; at: Date } | undefined;
  /** Mempool transactions already read, so each is fetched once while it waits. */
  private mempoolSeen = new Set<string>();
  /**
   * Unmined payments missing from the mempool at the last poll. Missing again one poll later (so a block
   * mined meanwhile has been scanned), the transaction was replaced or evicted: the payment is dropped.
   */
  private missing = new Set<number>();
  private readonly watched: WatchedAddresses<string>;
  /** The watched set as output script -> top-up id, for matching. */
  private readonly byScript: ScriptLookup = { get: (script) => this.watched.get(script)?.topupId };
  readonly push: PushLink | undefined;
  readonly expectations: NodeExpectations | undefined;
  lastTip: number | undefined;
  /** The last block walk: how many blocks, how long, against how many addresses (for the benchmark). */
  lastScan: { blocks: number; ms: number; addresses: number } | undefined;

  /** The watcher's name for a network: its lease and cursor row. */
  static nameFor(network: UtxoWatcherOptions["network"]): string {
    return `utxo:${network}`;
  }

  constructor(private readonly options: UtxoWatcherOptions) {
    this.name = UtxoWatcher.nameFor(options.network);
    this.networks = [options.network];
    this.rpc = new BitcoinRpc(options.rpcUrl, options.cookieFile);
    this.push = options.push;
    this.expectations = options.expectations;
    this.watched = new WatchedAddresses(this.networks, (row) => {
      try {
        return p2wpkhScriptHex(options.network, row.address, options.net);
      } catch {
        return undefined; // made for another chain of this coin (e.g. before the node was switched)
      }
    });
  }

  get node(): WatcherNode {
    return { url: new URL(this.rpc.displayUrl).origin };
  }

  /**
   * The node's tip and what it says of itself: its peers, the best chain it has heard of, its newest block's
   * time (read once per tip). It must serve the chain our addresses are for: regtest coins on a mainnet
   * service would be lost.
   */
  private async readNode(): Promise<{ tip: number; view: Omit<NodeView, "tip"> }> {
    const info = await this.rpc.call<ChainInfo>("getblockchaininfo");
    if (info.chain !== this.options.net) {
      throw new Error(`the node serves chain "${info.chain}", but addresses are for "${this.options.net}"`);
    }
    const peers = await this.rpc.call<number>("getconnectioncount");
    if (this.tipTime?.hash !== info.bestblockhash) {
      const time =
        info.time ??
        (await this.rpc.call<{ time: number }>("getblockheader", [info.bestblockhash, true])).time;
      this.tipTime = { hash: info.bestblockhash, at: new Date(time * 1000) };
    }
    return {
      tip: info.blocks,
      view: { peers, headers: info.headers ?? null, tipAt: this.tipTime.at },
    };
  }

  private async getVerboseBlock(hash: string): Promise<Block> {
    if (this.dialect !== "bcoin") {
      try {
        const block = await this.rpc.call<Block>("getblock", [hash, 2]);
        this.dialect = "core";
        return block;
      } catch (error) {
        if (!(error instanceof RpcError) || this.dialect === "core") throw error;
        this.dialect = "bcoin";
      }
    }
    return this.rpc.call<Block>("getblock", [hash, true, true]);
  }

  /**
   * Reads serialized data and parses it ourselves (a fraction of the verbose JSON's size and cost); what
   * the parser does not know (e.g. Litecoin's MWEB transactions) is read as verbose JSON instead.
   */
  private async readRaw(
    raw: () => Promise<string>,
    parse: (hex: string) => RawOutput[],
    verbose: () => Promise<Transaction[]>,
    watched: ScriptLookup,
    place: Place,
  ): Promise<ObservedPayment[]> {
    if (this.rawFailures < 3) {
      try {
        const outputs = parse(await raw());
        return outputs.flatMap((output) => {
          const topupId = watched.get(output.script);
          if (topupId === undefined || output.value <= 0n) return [];
          return [{ topupId, txHash: output.txid, logIndex: output.n, amountUnits: output.value, ...place }];
        });
      } catch (error) {
        if (!(error instanceof UnsupportedSerialization)) throw error;
        this.rawFailures++;
      }
    }
    return (await verbose()).flatMap((tx) => UtxoWatcher.match(tx, watched, place));
  }

  private blockPayments(hash: string, watched: ScriptLookup, place: Place) {
    const keep = (script: string) => watched.get(script) !== undefined;
    return this.readRaw(
      () => this.rpc.call<string>("getblock", [hash, 0]),
      (hex) => blockOutputs(hex, keep),
      async () => (await this.getVerboseBlock(hash)).tx,
      watched,
      place,
    );
  }

  private mempoolPayments(txid: string, watched: ScriptLookup) {
    const keep = (script: string) => watched.get(script) !== undefined;
    const place = { blockNumber: null, blockHash: null, confirmations: 0 };
    return this.readRaw(
      () => this.rpc.call<string>("getrawtransaction", [txid, false]),
      (hex) => transactionOutputs(hex, keep),
      async () => [await this.rpc.call<Transaction>("getrawtransaction", [txid, true])],
      watched,
      place,
    );
  }

  /** The outputs of `tx` that pay our addresses. */
  static match(tx: Transaction, watched: ScriptLookup, place: Place): ObservedPayment[] {
    const found: ObservedPayment[] = [];
    for (const output of tx.vout) {
      const topupId = watched.get(output.scriptPubKey.hex);
      if (topupId === undefined) continue;
      const amountUnits = coinToUnits(output.value);
      if (amountUnits <= 0n) continue;
      found.push({ topupId, txHash: tx.txid, logIndex: output.n, amountUnits, ...place });
    }
    return found;
  }

  async poll(signal?: AbortSignal): Promise<number[]> {
    const network = this.options.network;
    const { tip, view } = await this.readNode();
    this.lastTip = tip;
    const cursor = await readCursor(this.name);
    let scanned =
      cursor && cursor.scannedBlock >= 0 ? cursor.scannedBlock : Math.max(-1, tip - FIRST_RUN_LOOKBACK);
    const hashes = new Map<number, string | null>();
    const hashAt = async (height: number): Promise<string | null> => {
      if (height > tip || height < 0) return null;
      if (!hashes.has(height)) hashes.set(height, await this.rpc.call<string>("getblockhash", [height]));
      return hashes.get(height) ?? null;
    };

    // A reorg below the cursor: the blocks that replaced ours are scanned again.
    if (cursor?.scannedHash && scanned >= 0 && (await hashAt(scanned)) !== cursor.scannedHash) {
      scanned = Math.max(-1, Math.min(scanned, tip) - REORG_WATCH_DEPTH);
    }

    const touched = new Set<number>();
    const unmined: { id: number; topupId: number; txHash: string }[] = [];
    // Payments whose block left the best chain drop back to unconfirmed; the others count from the tip.
    for (const payment of await trackedPayments(network, tip - REORG_WATCH_DEPTH)) {
      if (payment.blockNumber === null) {
        if (payment.droppedAt === null) unmined.push(payment);
        continue;
      }
      if ((await hashAt(payment.blockNumber)) === payment.blockHash) {
        const confirmations = tip - payment.blockNumber + 1;
        if (confirmations !== payment.confirmations) {
          await setConfirmations(payment.id, confirmations);
          touched.add(payment.topupId);
        }
      } else {
        await unconfirmPayment(payment.id);
        this.mempoolSeen.delete(payment.txHash);
        scanned = Math.min(scanned, payment.blockNumber - 1);
        touched.add(payment.topupId);
      }
    }

    // Until the watched set is all read (a few passes at 100,000 addresses), the blocks wait; the cursor
    // is not moved, so the reorg checks above run again next time.
    if (!(await this.watched.sync())) return [...touched];
    const watched = this.byScript;
    const watching = this.watched.size > 0;
    const observed: ObservedPayment[] = [];
    const last = Math.min(tip, scanned + MAX_BLOCKS_PER_POLL);
    let scannedHash = scanned >= 0 ? await hashAt(scanned) : null;
    const started = performance.now();
    let blocks = 0;
    for (let height = scanned + 1; height <= last; height++) {
      signal?.throwIfAborted();
      const hash = await hashAt(height);
      if (!hash) break;
      // With nothing to watch, the block need not be read at all.
      if (watching) {
        const place = { blockNumber: height, blockHash: hash, confirmations: tip - height + 1 };
        for (const payment of await this.blockPayments(hash, watched, place)) observed.push(payment);
      }
      scanned = height;
      scannedHash = hash;
      blocks++;
    }
    if (blocks > 0) {
      this.lastScan = { blocks, ms: performance.now() - started, addresses: this.watched.size };
    }

    const mempool = await this.rpc.call<string[]>("getrawmempool");
    const inPool = new Set(mempool);
    for (const txid of this.mempoolSeen) if (!inPool.has(txid)) this.mempoolSeen.delete(txid);
    if (watching) {
      let reads = 0;
      for (const txid of mempool) {
        if (this.mempoolSeen.has(txid)) continue;
        if (++reads > MEMPOOL_READS_PER_POLL) break;
        signal?.throwIfAborted();
        const found = await this.mempoolPayments(txid, watched).catch((error) => {
          if (error instanceof RpcError) return null; // mined or evicted meanwhile: the block walk sees it if mined
          throw error;
        });
        if (!found) continue;
        this.mempoolSeen.add(txid);
        for (const payment of found) observed.push(payment);
      }
    }

    const mined = new Set(observed.filter((o) => o.blockHash !== null).map((o) => o.txHash));
    const stillMissing = new Set<number>();
    for (const payment of unmined) {
      if (inPool.has(payment.txHash) || mined.has(payment.txHash)) continue;
      if (!this.missing.has(payment.id)) stillMissing.add(payment.id);
      else if (await dropPayment(payment.id)) touched.add(payment.topupId);
    }
    this.missing = stillMissing;

    const stillOpen = await stillWatched(observed.map((payment) => payment.topupId));
    const current = observed.filter((payment) => stillOpen.has(payment.topupId));
    for (const id of await observePayments(network, current)) touched.add(id);
    // Only when a payment changed: one that reached its confirmations is among them.
    if (touched.size > 0)
      await recordConfirmingBlockTimes(network, async (height) => {
        const hash = await hashAt(height);
        if (!hash) return undefined;
        const header = await this.rpc.call<{ time: number }>("getblockheader", [hash, true]);
        return new Date(header.time * 1000);
      });
    signal?.throwIfAborted();
    await saveCursor(this.name, { scannedBlock: scanned, scannedHash, headBlock: tip }, cursor, view);
    return [...touched];
  }
}
