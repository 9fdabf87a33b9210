import "server-only";
import {
  type ObservedPayment,
  observePayments,
  setConfirmations,
  trackedPayments,
  unconfirmPayment,
  watchedAddresses,
} from "./crediting";
import { readCursor, saveCursor } from "./cursor";
import type { DepositWatcher, WatcherNode } from "./watcher";

/** monero-wallet-rpc creates at most this many subaddresses per `create_address` call (0.18). */
const CREATE_BATCH = 64;

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

  async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    // wallet-rpc's --rpc-login uses HTTP digest; a reverse proxy with basic auth in the URL works too.
    if (this.auth) headers.authorization = `Basic ${Buffer.from(this.auth).toString("base64")}`;
    const response = await fetch(this.endpoint, {
      method: "POST",
      headers,
      // Big integers (amounts) stay exact: they are read from the text below.
      body: JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    let body: { result?: T; error?: { code: number; message: string } };
    try {
      // Quote long integers so piconero amounts above 2^53 survive JSON.parse.
      body = JSON.parse(text.replace(/("amount"\s*:\s*)(\d{16,})/g, '$1"$2"'));
    } catch {
      throw new Error(`${method}: not a JSON-RPC answer (HTTP ${response.status})`);
    }
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }
}

export type MoneroWatcherOptions = {
  walletRpcUrl: string;
  /** Our primary address (from the view key and public spend key): the wallet must be ours. */
  primaryAddress: string;
};

/**
 * Watches Monero through a view-only monero-wallet-rpc made from our private view key and public spend key
 * (it can see incoming payments, never spend). Deposit addresses are subaddresses (0, i+1); the wallet only
 * recognises subaddresses it has created or that lie within its lookahead (200 past the last created), so
 * each one handed out is created in the wallet first (`prepareAddress`, and again on every poll). A
 * transfer counts once it is unlocked: in a block with the required confirmations (10: Monero's own lock on
 * received outputs), no custom unlock time, and no double spend seen.
 */
export class MoneroWatcher implements DepositWatcher {
  readonly name = "xmr:monero";
  readonly demo = false;
  readonly networks = ["monero"] as const;
  private readonly wallet: MoneroWalletRpc;
  private checked = false;
  /** Highest subaddress minor index known to exist in the wallet. */
  private createdUpTo = -1;

  constructor(private readonly options: MoneroWatcherOptions) {
    this.wallet = new MoneroWalletRpc(options.walletRpcUrl);
  }

  get node(): WatcherNode {
    return { url: new URL(this.wallet.endpoint).origin };
  }

  private async checkWallet(): Promise<void> {
    if (this.checked) return;
    const { address } = await this.wallet.call<{ address: string }>("get_address", { account_index: 0 });
    if (address !== this.options.primaryAddress) {
      throw new Error("the wallet behind XMR_WALLET_RPC_URL is not made from DEPOSIT_XMR_* keys");
    }
    this.checked = true;
  }

  /** Makes the wallet create subaddresses (0, 1..minor), so payments to them are recognised. */
  async prepareAddress(minor: number): Promise<void> {
    await this.checkWallet();
    if (minor <= this.createdUpTo) return;
    const { addresses } = await this.wallet.call<{ addresses: unknown[] }>("get_address", {
      account_index: 0,
    });
    let highest = addresses.length - 1;
    while (highest < minor) {
      const count = Math.min(CREATE_BATCH, minor - highest);
      await this.wallet.call("create_address", { account_index: 0, count });
      highest += count;
    }
    this.createdUpTo = highest;
  }

  /** What the transfer counts as: its confirmations, held below the target while it cannot be spent. */
  static confirmationsOf(transfer: Transfer, required: number): number {
    if (transfer.height === 0) return 0;
    const confirmations = transfer.confirmations ?? 0;
    const spendable = transfer.unlock_time === 0 && !transfer.double_spend_seen && transfer.locked !== true;
    return spendable ? confirmations : Math.min(confirmations, required - 1);
  }

  async poll(): Promise<number[]> {
    await this.checkWallet();
    const watched = await watchedAddresses(this.networks);
    // Our addresses are the subaddresses (0, derivation index + 1), as lib/deposits/addresses derives them.
    const byMinor = new Map(watched.map((entry) => [(entry.derivationIndex ?? -1) + 1, entry]));
    await this.prepareAddress(Math.max(0, ...byMinor.keys()));
    await this.wallet.call("refresh");
    const { height } = await this.wallet.call<{ height: number }>("get_height");

    const transfers = await this.wallet.call<{ in?: Transfer[]; pool?: Transfer[] }>("get_transfers", {
      in: true,
      pool: true,
      account_index: 0,
    });
    const tracked = await trackedPayments("monero");

    const seen = new Map<string, { topupId: number; confirmations: number }>();
    const observed: ObservedPayment[] = [];
    for (const transfer of [...(transfers.in ?? []), ...(transfers.pool ?? [])]) {
      if (transfer.subaddr_index.major !== 0) continue;
      const entry = byMinor.get(transfer.subaddr_index.minor);
      if (entry === undefined) continue;
      const topupId = entry.topupId;
      const confirmations = MoneroWatcher.confirmationsOf(transfer, entry.confirmationsRequired);
      const key = `${transfer.txid}:${transfer.subaddr_index.minor}`;
      seen.set(key, { topupId, confirmations });
      observed.push({
        topupId,
        txHash: transfer.txid,
        logIndex: transfer.subaddr_index.minor,
        amountUnits: BigInt(transfer.amount),
        blockNumber: transfer.height > 0 ? transfer.height : null,
        blockHash: null,
        confirmations,
      });
    }
    const touched = new Set(await observePayments("monero", observed));
    for (const payment of tracked) {
      const now = seen.get(`${payment.txHash}:${payment.logIndex}`);
      if (!now) {
        // Gone from the wallet's view (a reorg took its block and the pool dropped it).
        if (payment.blockNumber !== null || payment.confirmations > 0) {
          await unconfirmPayment(payment.id);
          touched.add(payment.topupId);
        }
      } else if (now.confirmations !== payment.confirmations) {
        await setConfirmations(payment.id, now.confirmations);
        touched.add(payment.topupId);
      }
    }
    const cursor = await readCursor(this.name);
    await saveCursor(this.name, {
      scannedBlock: Math.max(height - 1, cursor?.scannedBlock ?? -1),
      scannedHash: null,
      headBlock: height - 1,
    });
    return [...touched];
  }
}
