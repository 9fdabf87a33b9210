import "server-only";
import { createPublicClient, getAddress, http, type PublicClient, parseAbiItem } from "viem";
import {
  forgetPayment,
  type ObservedPayment,
  observePayments,
  setConfirmations,
  trackedPayments,
  watchedAddresses,
} from "./crediting";
import { readCursor, saveCursor } from "./cursor";
import type { DepositWatcher, WatcherNode } from "./watcher";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
/** Blocks read per poll at most, so a watcher that was down catches up in bounded steps. */
const MAX_BLOCKS_PER_POLL = 200n;
/** On its first run the watcher starts this far behind the head, to see payments made just before. */
const FIRST_RUN_LOOKBACK = 64n;

/**
 * Watches an EVM chain over JSON-RPC for ETH sent to deposit addresses (successful transactions whose `to`
 * is the address) and for ERC-20 USDT `Transfer` logs to them. Confirmations = head - block + 1; a payment
 * whose block is no longer canonical (a reorg) is dropped and its blocks scanned again.
 */
export class EvmWatcher implements DepositWatcher {
  readonly name = "evm:ethereum";
  readonly demo = false;
  readonly networks = ["ethereum"] as const;
  private readonly client: PublicClient;
  readonly node: WatcherNode;

  constructor(
    rpcUrl: string,
    private readonly usdtAddress: `0x${string}`,
  ) {
    // Only the origin: a provider's key often sits in the path.
    this.node = { url: new URL(rpcUrl).origin };
    this.client = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000, retryCount: 1 }) });
  }

  async poll(): Promise<number[]> {
    const head = await this.client.getBlockNumber();
    const cursor = await readCursor(this.name);
    const scanned =
      cursor && cursor.scannedBlock >= 0 ? BigInt(cursor.scannedBlock) : head - FIRST_RUN_LOOKBACK;
    const from = scanned + 1n > 0n ? scanned + 1n : 0n;
    const to = head < from + MAX_BLOCKS_PER_POLL - 1n ? head : from + MAX_BLOCKS_PER_POLL - 1n;

    const touched = new Set<number>();
    let rescanFrom: bigint | undefined;
    if (from <= to) {
      const observed = await this.scan(from, to, head);
      for (const id of await observePayments("ethereum", observed)) touched.add(id);
    }
    for (const payment of await trackedPayments("ethereum")) {
      if (payment.blockNumber === null) continue;
      const block = await this.client
        .getBlock({ blockNumber: BigInt(payment.blockNumber) })
        .catch(() => null);
      if (!block || block.hash !== payment.blockHash) {
        await forgetPayment(payment.id);
        const back = BigInt(payment.blockNumber) - 1n;
        rescanFrom = rescanFrom === undefined || back < rescanFrom ? back : rescanFrom;
      } else {
        const confirmations = Number(head - BigInt(payment.blockNumber) + 1n);
        if (confirmations !== payment.confirmations) await setConfirmations(payment.id, confirmations);
      }
      touched.add(payment.topupId);
    }
    const newScanned = rescanFrom !== undefined && rescanFrom < to ? rescanFrom : to;
    await saveCursor(this.name, {
      scannedBlock: Number(newScanned),
      scannedHash: null,
      headBlock: Number(head),
    });
    return [...touched];
  }

  private async scan(from: bigint, to: bigint, head: bigint): Promise<ObservedPayment[]> {
    const watched = await watchedAddresses(this.networks);
    if (watched.length === 0) return [];
    const ethTargets = new Map<string, number>();
    const usdtTargets = new Map<string, number>();
    for (const entry of watched) {
      (entry.coin === "ETH" ? ethTargets : usdtTargets).set(entry.address.toLowerCase(), entry.topupId);
    }
    const confirmationsAt = (blockNumber: bigint) => Number(head - blockNumber + 1n);
    const observed: ObservedPayment[] = [];

    if (ethTargets.size > 0) {
      for (let number = from; number <= to; number++) {
        const block = await this.client.getBlock({ blockNumber: number, includeTransactions: true });
        for (const tx of block.transactions) {
          const topupId = tx.to ? ethTargets.get(tx.to.toLowerCase()) : undefined;
          if (topupId === undefined || tx.value === 0n) continue;
          // A reverted transaction keeps its value; only a successful one moved the ether.
          const receipt = await this.client.getTransactionReceipt({ hash: tx.hash });
          if (receipt.status !== "success") continue;
          observed.push({
            topupId,
            txHash: tx.hash,
            logIndex: -1,
            amountUnits: tx.value,
            blockNumber: Number(number),
            blockHash: block.hash,
            confirmations: confirmationsAt(number),
          });
        }
      }
    }
    if (usdtTargets.size > 0) {
      const logs = await this.client.getLogs({
        address: this.usdtAddress,
        event: TRANSFER,
        args: { to: [...usdtTargets.keys()].map((address) => getAddress(address)) },
        fromBlock: from,
        toBlock: to,
      });
      for (const log of logs) {
        const topupId = log.args.to ? usdtTargets.get(log.args.to.toLowerCase()) : undefined;
        if (topupId === undefined || !log.args.value || log.blockNumber === null || log.logIndex === null)
          continue;
        observed.push({
          topupId,
          txHash: log.transactionHash,
          logIndex: log.logIndex,
          amountUnits: log.args.value,
          blockNumber: Number(log.blockNumber),
          blockHash: log.blockHash,
          confirmations: confirmationsAt(log.blockNumber),
        });
      }
    }
    return observed;
  }
}
