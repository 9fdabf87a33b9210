import "server-only";
import { performance } from "node:perf_hooks";
import { readCursor, saveCursor } from "../deposits/cursor";
import type { PushLink } from "../deposits/push";
import {
  type ObservedPayment,
  observePayments,
  recordConfirmingBlockTimes,
  setConfirmations,
  type TrackedPayment,
  trackedPayments,
  unconfirmPayment,
} from "../deposits/sightings";
import { stillWatched, WatchedAddresses } from "../deposits/watched-set";
import type { DepositWatcher, WatcherNode } from "../deposits/watcher";

export const MONERO_WATCHER = { name: "xmr:monero", networks: ["monero"] } as const;

/** monero-wallet-rpc creates at most this many subaddresses per `create_address` call (0.18). */
const CREATE_BATCH = 64;
/** Subaddresses past the last one created that the wallet recognises anyway (its default lookahead). */
const WALLET_LOOKAHEAD = 200;
/** Blocks below the wallet's height whose transfers are read again each poll, so a reorg is noticed. */
const REORG_WINDOW = 30;
/**
 * Time a poll spends at most making missing subaddresses (a wallet that lost them): the wallet makes about
 * one every 10 ms, so 100,000 take several minutes, spread over polls instead of one that never ends.
 */
const CREATE_BUDGET_MS = 10_000;
/** At top-up creation at most this many are made in the request; a longer way is left to the polls. */
const CREATE_IN_REQUEST = 4 * CREATE_BATCH;
/** wallet-rpc's answer for a subaddress index the account does not have. */
const ADDRESS_INDEX_OUT_OF_BOUND = -15;
const REFRESH_TIMEOUT_MS = 120_000;
const RESCAN_TIMEOUT_MS = 30 * 60_000;

/** The wallet RPC gives a transfer's height, not its block's hash: the height stands in as its identity. */
const blockId = (height: number) => `height:${height}`;

type Transfer = {
  txid: string;
  amount: number | string;
  height: number;
  confirmations?: number;
  unlock_time: number;
  double_spend_seen: boolean;
  locked?: boolean;
  subaddr_index: { major: number; minor: number };
};

class WalletRpcError extends Error {
  constructor(
    method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message}`);
  }
}

/** A JSON-RPC 2.0 client for monero-wallet-rpc (`/json_rpc`). Amounts come back as integer piconero. */
class MoneroWalletRpc {
  readonly endpoint: string;
  private readonly auth: string | undefined;

  constructor(url: string) {
    const parsed = new URL(url);
    this.auth =
      parsed.username || parsed.password
        ? `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`
        : undefined;
    parsed.username = "";
    parsed.password = "";
    if (parsed.pathname === "/" || parsed.pathname === "") parsed.pathname = "/json_rpc";
    this.endpoint = parsed.toString();
  }

  async call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    // wallet-rpc's --rpc-login uses HTTP digest; a reverse proxy with basic auth in the URL works too.
    if (this.auth) headers.authorization = `Basic ${Buffer.from(this.auth).toString("base64")}`;
    const response = await fetch(this.endpoint, {
      method: "POST",
      headers,
      // Big integers (amounts) stay exact: they are read from the text below.
      body: JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let body: { result?: T; error?: { code: number; message: string } };
    try {
      // Quote long integers so piconero amounts above 2^53 survive JSON.parse.
      body = JSON.parse(text.replace(/("amount"\s*:\s*)(\d{16,})/g, '$1"$2"'));
    } catch {
      throw new Error(`${method}: not a JSON-RPC answer (HTTP ${response.status})`);
    }
    if (body.error) throw new WalletRpcError(method, body.error.code, body.error.message);
    return body.result as T;
  }
}

export type MoneroWatcherOptions = {
  walletRpcUrl: string;
  /** Our primary address (from the view key and public spend key): the wallet must be ours. */
  primaryAddress: string;
  /** monerod's ZMQ publisher, if configured: its notices wake the watcher and tell the blocks' times. */
  push?: PushLink;
};

/**
 * Watches Monero through a view-only monero-wallet-rpc made from our private view key and public spend key
 * (it can see incoming payments, never spend). Deposit addresses are subaddresses (0, i+1); the wallet only
 * recognises subaddresses it has created or that lie within its lookahead (200 past the last created), so
 * each one handed out is created in the wallet first (`prepareAddress`).
 *
 * The wallet is not trusted to keep them: one restarted without having stored its file has lost those made
 * since. Each poll checks that the highest watched subaddress exists (one cheap call); when it does not,
 * the wallet's count is found by probing and the missing ones are made again, and if some were past its
 * lookahead the wallet rescans, since payments to them may lie in blocks it has already read.
 *
 * Transfers are read from a little below the last height read (`get_transfers` by height), not the whole
 * history: the window re-reads recent blocks so a payment whose block a reorg removed is seen to move or
 * vanish (it is then unconfirmed, and flagged if it had been credited). A transfer counts once it is
 * unlocked: in a block with the required confirmations (10: Monero's own lock on received outputs), no
 * custom unlock time, and no double spend seen.
 */
export class MoneroWatcher implements DepositWatcher {
  readonly name = MONERO_WATCHER.name;
  readonly demo = false;
  readonly networks = MONERO_WATCHER.networks;
  private readonly wallet: MoneroWalletRpc;
  readonly push: PushLink | undefined;
  lastTip: number | undefined;
  /** Our subaddresses are (0, derivation index + 1), as ./address derives them. */
  private readonly watched = new WatchedAddresses<number>(this.networks, (row) =>
    row.derivationIndex === null ? undefined : row.derivationIndex + 1,
  );
  /** Highest subaddress index last seen to exist in the wallet; only a first guess, always checked. */
  private createdUpTo = -1;
  /** Subaddresses past the wallet's lookahead had to be made again: it must rescan once they all exist. */
  private rescanPending = false;
  /** Read every transfer once after a rescan (it may have found old ones), not only the recent ones. */
  private readEverything = false;
  /** Subaddress work (requests and polls) one at a time, so two never count and create at once. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: MoneroWatcherOptions) {
    this.wallet = new MoneroWalletRpc(options.walletRpcUrl);
    this.push = options.push;
  }

  get node(): WatcherNode {
    return { url: new URL(this.wallet.endpoint).origin };
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The wallet behind the URL must be ours; checked on every poll, since it may be replaced while we run. */
  private async checkWallet(): Promise<void> {
    const { address } = await this.wallet.call<{ address: string }>("get_address", {
      account_index: 0,
      address_index: [0],
    });
    if (address !== this.options.primaryAddress) {
      throw new Error("the wallet behind XMR_WALLET_RPC_URL is not made from DEPOSIT_XMR_* keys");
    }
  }

  private async hasSubaddress(minor: number): Promise<boolean> {
    try {
      await this.wallet.call("get_address", { account_index: 0, address_index: [minor] });
      return true;
    } catch (error) {
      if (error instanceof WalletRpcError && error.code === ADDRESS_INDEX_OUT_OF_BOUND) return false;
      throw error;
    }
  }

  /**
   * How many subaddresses account 0 has (index 0 being the primary address), found by probing single
   * indexes: two calls when the last count is still right, about 2·log2(n) when the wallet lost some,
   * never a listing of them all.
   */
  private async subaddressCount(): Promise<number> {
    let present = 0;
    if (this.createdUpTo > 0 && (await this.hasSubaddress(this.createdUpTo))) present = this.createdUpTo;
    let step = 1;
    let absent = present + step;
    while (await this.hasSubaddress(absent)) {
      present = absent;
      step *= 2;
      absent = present + step;
    }
    while (absent - present > 1) {
      const middle = Math.floor((present + absent) / 2);
      if (await this.hasSubaddress(middle)) present = middle;
      else absent = middle;
    }
    return present + 1;
  }

  /** Makes subaddresses `count`.. `minor` in batches (each new one takes the next index), until `deadline`. */
  private async createUpTo(count: number, minor: number, deadline: number, signal?: AbortSignal) {
    let made = count;
    while (made <= minor && performance.now() < deadline) {
      signal?.throwIfAborted();
      const batch = Math.min(CREATE_BATCH, minor - made + 1);
      await this.wallet.call("create_address", { account_index: 0, count: batch });
      made += batch;
    }
    this.createdUpTo = made - 1;
    return made;
  }

  /**
   * Makes the wallet create the subaddress of derivation index `derivationIndex`, (0, index + 1), before its
   * address is handed out, so payments to it are recognised. Only the missing ones up to it are made
   * (normally just this one); when the wallet lacks many (it lost them), the polls make them within their
   * time budget and this one fails.
   */
  async prepareAddress(derivationIndex: number): Promise<void> {
    const minor = derivationIndex + 1;
    await this.checkWallet();
    await this.exclusive(async () => {
      if (await this.hasSubaddress(minor)) {
        this.createdUpTo = Math.max(this.createdUpTo, minor);
        return;
      }
      const count = await this.subaddressCount();
      if (minor - count >= CREATE_IN_REQUEST) {
        throw new Error(`the wallet has ${count} subaddresses; the watcher makes the rest up to ${minor}`);
      }
      await this.createUpTo(count, minor, Number.POSITIVE_INFINITY);
    });
  }

  /**
   * Every watched subaddress exists in the wallet, and it has rescanned if it had to: true when so, false
   * while missing ones are still being made (the rest on the next polls).
   */
  private ensureSubaddresses(signal?: AbortSignal): Promise<boolean> {
    const highest = this.watched.highestDerivationIndex + 1;
    if (highest <= 0) return Promise.resolve(true);
    return this.exclusive(async () => {
      if (!(await this.hasSubaddress(highest))) {
        const count = await this.subaddressCount();
        if (count <= this.createdUpTo) {
          console.error(
            `monero: the wallet has ${count} subaddresses, ${this.createdUpTo + 1} before (restarted without ` +
              "storing its file?); making them again",
          );
        }
        if (highest >= count + WALLET_LOOKAHEAD) this.rescanPending = true;
        const made = await this.createUpTo(count, highest, performance.now() + CREATE_BUDGET_MS, signal);
        if (made <= highest) return false;
      } else {
        this.createdUpTo = Math.max(this.createdUpTo, highest);
      }
      if (this.rescanPending) {
        // Payments to subaddresses it did not know may lie in blocks it has read: a soft rescan keeps the
        // subaddresses and reads the chain again from its restore height.
        console.error("monero: rescanning the wallet for payments to the subaddresses made again");
        await this.wallet.call("rescan_blockchain", { hard: false }, RESCAN_TIMEOUT_MS);
        this.rescanPending = false;
        this.readEverything = true;
      }
      return true;
    });
  }

  /** What the transfer counts as: its confirmations, held below the target while it cannot be spent. */
  static confirmationsOf(transfer: Transfer, required: number): number {
    if (transfer.height === 0) return 0;
    const confirmations = transfer.confirmations ?? 0;
    const spendable = transfer.unlock_time === 0 && !transfer.double_spend_seen && transfer.locked !== true;
    return spendable ? confirmations : Math.min(confirmations, required - 1);
  }

  /** Incoming transfers in blocks above `above` (all of them when undefined) and in the pool. */
  private async transfersAbove(above: number | undefined): Promise<Transfer[]> {
    const byHeight = above === undefined ? {} : { filter_by_height: true, min_height: above };
    const found = await this.wallet.call<{ in?: Transfer[]; pool?: Transfer[] }>("get_transfers", {
      in: true,
      pool: true,
      account_index: 0,
      ...byHeight,
    });
    const all = found.in ?? [];
    for (const transfer of found.pool ?? []) all.push(transfer);
    return all;
  }

  /** The transfers of one transaction to our account (a payment below the window, still confirming). */
  private async transfersOf(txid: string): Promise<Transfer[]> {
    try {
      const found = await this.wallet.call<{ transfers?: Transfer[] }>("get_transfer_by_txid", {
        txid,
        account_index: 0,
      });
      return found.transfers ?? [];
    } catch (error) {
      if (error instanceof WalletRpcError) return []; // not known to the wallet (any more)
      throw error;
    }
  }

  async poll(signal?: AbortSignal): Promise<number[]> {
    await this.checkWallet();
    // Until the watched set is all read (a few passes at 100,000 addresses), the wallet waits.
    if (!(await this.watched.sync())) return [];
    const complete = await this.ensureSubaddresses(signal);
    await this.wallet.call("refresh", {}, REFRESH_TIMEOUT_MS);
    const { height } = await this.wallet.call<{ height: number }>("get_height");
    const top = height - 1;
    this.lastTip = top;
    const cursor = await readCursor(this.name);
    const last = cursor && cursor.scannedBlock >= 0 ? cursor.scannedBlock : -1;
    // A wallet below the height it showed before (restarted from an older file), or still missing some of
    // our subaddresses, has not caught up: a transfer it does not show now is not gone.
    const catchingUp = !complete || top < (cursor?.headBlock ?? -1);
    const from = Math.min(last, top) - REORG_WINDOW;
    const readAll = this.readEverything || last < 0 || from <= 0;
    const tracked = await trackedPayments("monero", from + 1);

    const seen = new Map<string, Transfer>();
    const note = (transfer: Transfer) => {
      if (transfer.subaddr_index.major === 0)
        seen.set(`${transfer.txid}:${transfer.subaddr_index.minor}`, transfer);
    };
    for (const transfer of await this.transfersAbove(readAll ? undefined : from)) note(transfer);
    if (!readAll) {
      // Still confirming from a block below the window (a custom unlock time): looked up one by one.
      for (const txid of new Set(tracked.filter((p) => this.belowWindow(p, from)).map((p) => p.txHash))) {
        for (const transfer of await this.transfersOf(txid)) note(transfer);
      }
    }

    const touched = new Set<number>();
    for (const payment of tracked) {
      const now = seen.get(`${payment.txHash}:${payment.logIndex}`);
      const required = payment.confirmationsRequired;
      if (payment.blockNumber !== null && (now ? now.height !== payment.blockNumber : !catchingUp)) {
        // Its block left the chain: back to the pool, into another block, or gone.
        await unconfirmPayment(payment.id);
        touched.add(payment.topupId);
      } else if (now && MoneroWatcher.confirmationsOf(now, required) !== payment.confirmations) {
        await setConfirmations(payment.id, MoneroWatcher.confirmationsOf(now, required));
        touched.add(payment.topupId);
      } else if (!now && !catchingUp && payment.confirmations > 0) {
        await unconfirmPayment(payment.id);
        touched.add(payment.topupId);
      }
    }

    const observed: ObservedPayment[] = [];
    for (const transfer of seen.values()) {
      const entry = this.watched.get(transfer.subaddr_index.minor);
      if (!entry) continue;
      observed.push({
        topupId: entry.topupId,
        txHash: transfer.txid,
        logIndex: transfer.subaddr_index.minor,
        amountUnits: BigInt(transfer.amount),
        blockNumber: transfer.height > 0 ? transfer.height : null,
        blockHash: transfer.height > 0 ? blockId(transfer.height) : null,
        confirmations: MoneroWatcher.confirmationsOf(transfer, entry.confirmationsRequired),
      });
    }
    const open = await stillWatched(observed.map((payment) => payment.topupId));
    const current = observed.filter((payment) => open.has(payment.topupId));
    for (const id of await observePayments("monero", current)) touched.add(id);
    // The wallet tells no block's time; monerod's push does, for the blocks it announced.
    const push = this.push;
    if (push?.blockTime && touched.size > 0)
      await recordConfirmingBlockTimes("monero", async (at) => push.blockTime?.(at));
    signal?.throwIfAborted();
    await saveCursor(
      this.name,
      { scannedBlock: Math.max(top, last), scannedHash: null, headBlock: top },
      cursor,
    );
    if (readAll && complete) this.readEverything = false;
    return [...touched];
  }

  /** A payment outside the transfers read by height: in a block at or below `from`, or an old row without one. */
  private belowWindow(payment: TrackedPayment, from: number): boolean {
    return payment.blockNumber === null ? payment.confirmations > 0 : payment.blockNumber <= from;
  }
}
