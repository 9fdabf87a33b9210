import "server-only";
import { createPublicClient, getAddress, http, type PublicClient } from "viem";
import { WatchedAddresses } from "../deposits/watched-set";
import type { DepositWatcher, WatcherNode } from "../deposits/watcher";
import { pollEvmChain, watchedTokenPayments } from "../evm/chain";
import { tronConfirmations, tronToEvmHex } from "./address";

export const TRON_WATCHER = { name: "tron:usdt", networks: ["tron"] } as const;

/**
 * Blocks below the head whose payments are re-checked for a reorg on every poll: about twice the 19 blocks
 * after which TRON's block producers have made a block irreversible (solidified).
 */
const REORG_WINDOW = 40;

/** A `T…` address as java-tron's JSON-RPC shows it (20-byte hex, lower case); undefined if it is not one. */
function tronHexKey(address: string): string | undefined {
  try {
    return tronToEvmHex(address);
  } catch {
    return undefined; // not a TRON address: nothing can pay it here
  }
}

/**
 * Watches TRC-20 tokens (USDT) through java-tron's Ethereum-style JSON-RPC (`/jsonrpc`): each token's `Transfer`
 * logs, matched against our `T…` addresses in memory in their 20-byte hex form (`WatchedAddresses`). With a
 * solidity node's JSON-RPC (`TRON_SOLIDITY_RPC_URL`), a payment counts once its block is solidified
 * (irreversible); without, after the required depth below the head. Reorgs are handled by `pollEvmChain`.
 */
export class TronWatcher implements DepositWatcher {
  readonly name = TRON_WATCHER.name;
  readonly demo = false;
  readonly networks = TRON_WATCHER.networks;
  readonly node: WatcherNode;
  private readonly client: PublicClient;
  private readonly solidity: PublicClient | undefined;
  /** The TRC-20 tokens watched: contract (as JSON-RPC shows it) -> coin code. */
  private readonly tokens: [`0x${string}`, string][];
  private readonly watched = new WatchedAddresses<string>(this.networks, (row) => tronHexKey(row.address));

  constructor(options: { rpcUrl: string; solidityRpcUrl?: string; tokens: Record<string, string> }) {
    this.node = { url: new URL(options.rpcUrl).origin };
    const transport = (url: string) => http(url, { timeout: 10_000, retryCount: 1 });
    this.client = createPublicClient({ transport: transport(options.rpcUrl) });
    this.solidity = options.solidityRpcUrl
      ? createPublicClient({ transport: transport(options.solidityRpcUrl) })
      : undefined;
    this.tokens = Object.entries(options.tokens).map(([code, contract]) => [
      getAddress(contract.startsWith("T") ? tronToEvmHex(contract) : contract),
      code,
    ]);
  }

  async poll(signal?: AbortSignal): Promise<number[]> {
    const solidified = this.solidity ? Number(await this.solidity.getBlockNumber()) : undefined;
    // Until the watched set is all read (a few passes at 100,000 addresses), the chain waits.
    if (!(await this.watched.sync())) return [];
    const confirmationsOf = (block: number, required: number, head: bigint) =>
      tronConfirmations({ block, head: Number(head), solidified, required });
    return pollEvmChain({
      name: this.name,
      network: "tron",
      client: this.client,
      reorgWindow: REORG_WINDOW,
      signal,
      confirmationsOf,
      scan: (from, to, head) =>
        watchedTokenPayments({
          client: this.client,
          tokens: this.tokens,
          watched: this.watched,
          from,
          to,
          head,
          signal,
          confirmationsOf,
        }),
    });
  }
}
