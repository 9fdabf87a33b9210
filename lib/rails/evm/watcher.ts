import "server-only";
import { createPublicClient, http, type PublicClient } from "viem";
import type { PushLink } from "../deposits/push";
import type { ObservedPayment } from "../deposits/sightings";
import { WatchedAddresses } from "../deposits/watched-set";
import type { DepositWatcher, WatcherNode } from "../deposits/watcher";
import { pollEvmChain, watchedTokenPayments } from "./chain";
import { ETH } from "./facts";

export const EVM_WATCHER = { name: "evm:ethereum", networks: [ETH.network] } as const;

/** The chain's own coin, paid by plain value transfers. */
const NATIVE = ETH.code;

/**
 * Blocks below the head whose payments are re-checked for a reorg on every poll: two epochs, after which
 * Ethereum's proof of stake has finalized a block.
 */
const REORG_WINDOW = 64;

/** A frame of geth's `callTracer` output (also served by anvil, Erigon, Nethermind and Reth). */
type CallFrame = {
  type: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: CallFrame[];
};

/** Frame types that move ether to `to`; DELEGATECALL and STATICCALL carry none, CALLCODE keeps it home. */
const VALUE_FRAMES = new Set(["CALL", "SELFDESTRUCT"]);

/**
 * The ether transfers of one transaction's call tree, each with its frame's place in depth-first order
 * (the top-level call is 0). A transfer counts only if neither its frame nor any frame above it reverted:
 * ether sent by a call that was later undone never arrived.
 */
export function etherTransfers(root: CallFrame): { to: string; value: bigint; ordinal: number }[] {
  const found: { to: string; value: bigint; ordinal: number }[] = [];
  let ordinal = 0;
  const visit = (frame: CallFrame, undone: boolean) => {
    const place = ordinal++;
    const failed = undone || frame.error !== undefined;
    const value = frame.value ? BigInt(frame.value) : 0n;
    if (!failed && value > 0n && frame.to && VALUE_FRAMES.has(frame.type)) {
      found.push({ to: frame.to.toLowerCase(), value, ordinal: place });
    }
    for (const call of frame.calls ?? []) visit(call, failed);
  };
  visit(root, false);
  return found;
}

export type EvmWatcherOptions = {
  rpcUrl: string;
  /** The ERC-20 tokens watched: contract by coin code. */
  tokens: Record<string, `0x${string}`>;
  /** Read each block's call traces, so ether sent by contracts (internal calls) is credited too. */
  traceInternalTransfers: boolean;
  /** The node's `newHeads` subscription over WebSocket, if configured. */
  push?: PushLink;
};

/**
 * Watches an EVM chain over JSON-RPC for ETH sent to deposit addresses and for each token's ERC-20
 * `Transfer` logs to them, matched against the watched addresses in memory (`WatchedAddresses`), so the cost of a
 * poll follows the chain's traffic, not the number of addresses watched. ETH is found in each block's
 * transactions (their `to` and value, a reverted one excluded by its receipt) or, with
 * `traceInternalTransfers`, in each block's call traces (`debug_traceBlockByHash` with the call tracer),
 * which also shows ether a contract wallet sends by an internal call. Confirmations = head - block + 1;
 * reorgs are handled by `pollEvmChain`.
 */
export class EvmWatcher implements DepositWatcher {
  readonly name = EVM_WATCHER.name;
  readonly demo = false;
  readonly networks = EVM_WATCHER.networks;
  private readonly client: PublicClient;
  readonly node: WatcherNode;
  readonly push: PushLink | undefined;
  lastTip: number | undefined;
  private readonly watched = new WatchedAddresses<string>(this.networks, (row) => row.address.toLowerCase());

  constructor(private readonly options: EvmWatcherOptions) {
    // Only the origin: a provider's key often sits in the path.
    this.node = { url: new URL(options.rpcUrl).origin };
    this.push = options.push;
    this.client = createPublicClient({ transport: http(options.rpcUrl, { timeout: 10_000, retryCount: 1 }) });
  }

  async poll(signal?: AbortSignal): Promise<number[]> {
    // Until the watched set is all read (a few passes at 100,000 addresses), the chain waits.
    if (!(await this.watched.sync())) return [];
    const confirmationsOf = (blockNumber: number, _required: number, head: bigint) =>
      Number(head - BigInt(blockNumber) + 1n);
    return pollEvmChain({
      name: this.name,
      network: ETH.network,
      client: this.client,
      reorgWindow: REORG_WINDOW,
      signal,
      confirmationsOf,
      seenHead: (head) => {
        this.lastTip = head;
      },
      scan: async (from, to, head) => {
        const observed: ObservedPayment[] = [];
        if (this.watched.count(NATIVE) > 0) {
          for (const payment of await this.etherPayments(from, to, head, signal)) observed.push(payment);
        }
        const tokens = Object.entries(this.options.tokens).map(([code, token]) => [token, code] as const);
        const watched = this.watched;
        const client = this.client;
        const payments = await watchedTokenPayments({
          client,
          tokens,
          watched,
          from,
          to,
          head,
          signal,
          confirmationsOf,
        });
        for (const payment of payments) observed.push(payment);
        return observed;
      },
    });
  }

  /** The watched top-up in `coin` that `address` belongs to, if any. */
  private topupFor(address: string | null | undefined, coin: string) {
    const entry = address ? this.watched.get(address.toLowerCase()) : undefined;
    return entry?.coin === coin ? entry : undefined;
  }

  private async etherPayments(from: bigint, to: bigint, head: bigint, signal?: AbortSignal) {
    const observed: ObservedPayment[] = [];
    for (let number = from; number <= to; number++) {
      signal?.throwIfAborted();
      const place = { blockNumber: Number(number), confirmations: Number(head - number + 1n) };
      if (this.options.traceInternalTransfers) {
        const block = await this.client.getBlock({ blockNumber: number });
        const traces = await this.client.request<{
          Parameters: [string, { tracer: "callTracer" }];
          ReturnType: { txHash?: string; result: CallFrame }[];
        }>({ method: "debug_traceBlockByHash", params: [block.hash, { tracer: "callTracer" }] });
        traces.forEach((trace, i) => {
          // Older nodes give no txHash: the traces come in the block's transaction order.
          const txHash = trace.txHash ?? block.transactions[i];
          if (!txHash) return;
          for (const transfer of etherTransfers(trace.result)) {
            const entry = this.topupFor(transfer.to, NATIVE);
            if (!entry) continue;
            observed.push({
              topupId: entry.topupId,
              txHash,
              // The top-level call keeps -1, as without traces; internal ones count down from -2.
              logIndex: -1 - transfer.ordinal,
              amountUnits: transfer.value,
              blockHash: block.hash,
              ...place,
            });
          }
        });
        continue;
      }
      const block = await this.client.getBlock({ blockNumber: number, includeTransactions: true });
      for (const tx of block.transactions) {
        const entry = this.topupFor(tx.to, NATIVE);
        if (!entry || tx.value === 0n) continue;
        // A reverted transaction keeps its value; only a successful one moved the ether.
        const receipt = await this.client.getTransactionReceipt({ hash: tx.hash });
        if (receipt.status !== "success") continue;
        observed.push({
          topupId: entry.topupId,
          txHash: tx.hash,
          logIndex: -1,
          amountUnits: tx.value,
          blockHash: block.hash,
          ...place,
        });
      }
    }
    return observed;
  }
}
