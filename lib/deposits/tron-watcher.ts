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
import { tronConfirmations, tronToEvmHex } from "./tron";
import type { DepositWatcher, WatcherNode } from "./watcher";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const MAX_BLOCKS_PER_POLL = 200n;
const FIRST_RUN_LOOKBACK = 64n;

/**
 * Watches USDT (TRC-20) through java-tron's Ethereum-style JSON-RPC (`/jsonrpc`): `Transfer` logs of the
 * token to our `T…` addresses, read in their 20-byte hex form. With a solidity node's JSON-RPC
 * (`TRON_SOLIDITY_RPC_URL`), a payment counts once its block is solidified (irreversible); without, after
 * the required depth below the head. A payment whose block hash changed is dropped and its blocks rescanned.
 */
export class TronWatcher implements DepositWatcher {
  readonly name = "tron:usdt";
  readonly demo = false;
  readonly networks = ["tron"] as const;
  readonly node: WatcherNode;
  private readonly client: PublicClient;
  private readonly solidity: PublicClient | undefined;
  private readonly token: `0x${string}`;

  constructor(options: { rpcUrl: string; solidityRpcUrl?: string; usdtContract: string }) {
    this.node = { url: new URL(options.rpcUrl).origin };
    const transport = (url: string) => http(url, { timeout: 10_000, retryCount: 1 });
    this.client = createPublicClient({ transport: transport(options.rpcUrl) });
    this.solidity = options.solidityRpcUrl
      ? createPublicClient({ transport: transport(options.solidityRpcUrl) })
      : undefined;
    this.token = getAddress(
      options.usdtContract.startsWith("T") ? tronToEvmHex(options.usdtContract) : options.usdtContract,
    );
  }

  async poll(): Promise<number[]> {
    const head = await this.client.getBlockNumber();
    const solidified = this.solidity ? Number(await this.solidity.getBlockNumber()) : undefined;
    const cursor = await readCursor(this.name);
    const scanned =
      cursor && cursor.scannedBlock >= 0 ? BigInt(cursor.scannedBlock) : head - FIRST_RUN_LOOKBACK;
    const from = scanned + 1n > 0n ? scanned + 1n : 0n;
    const to = head < from + MAX_BLOCKS_PER_POLL - 1n ? head : from + MAX_BLOCKS_PER_POLL - 1n;
    const confirmationsOf = (block: number, required: number) =>
      tronConfirmations({ block, head: Number(head), solidified, required });

    const touched = new Set<number>();
    if (from <= to) {
      const watched = await watchedAddresses(this.networks);
      const targets = new Map<string, { topupId: number; required: number }>();
      for (const entry of watched) {
        try {
          targets.set(tronToEvmHex(entry.address), {
            topupId: entry.topupId,
            required: entry.confirmationsRequired,
          });
        } catch {
          // not a TRON address: nothing can pay it here
        }
      }
      if (targets.size > 0) {
        const logs = await this.client.getLogs({
          address: this.token,
          event: TRANSFER,
          args: { to: [...targets.keys()].map((hex) => getAddress(hex)) },
          fromBlock: from,
          toBlock: to,
        });
        const observed: ObservedPayment[] = [];
        for (const log of logs) {
          const target = log.args.to ? targets.get(log.args.to.toLowerCase()) : undefined;
          if (!target || !log.args.value || log.blockNumber === null || log.logIndex === null) continue;
          observed.push({
            topupId: target.topupId,
            txHash: log.transactionHash,
            logIndex: log.logIndex,
            amountUnits: log.args.value,
            blockNumber: Number(log.blockNumber),
            blockHash: log.blockHash,
            confirmations: confirmationsOf(Number(log.blockNumber), target.required),
          });
        }
        for (const id of await observePayments("tron", observed)) touched.add(id);
      }
    }

    let rescanFrom: bigint | undefined;
    for (const payment of await trackedPayments("tron")) {
      if (payment.blockNumber === null) continue;
      const block = await this.client
        .getBlock({ blockNumber: BigInt(payment.blockNumber) })
        .catch(() => null);
      if (!block || block.hash !== payment.blockHash) {
        await forgetPayment(payment.id);
        const back = BigInt(payment.blockNumber) - 1n;
        rescanFrom = rescanFrom === undefined || back < rescanFrom ? back : rescanFrom;
      } else {
        const confirmations = confirmationsOf(payment.blockNumber, payment.confirmationsRequired);
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
}
