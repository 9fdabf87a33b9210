/**
 * The deposit scenarios every Bitcoin-Core-style node must pass (litecoind for LTC, bcoin for BTC): the
 * app's wallet-less UTXO watcher reads the node; the test's payer wallet on the same node pays and mines.
 * Amounts are written in "units" of the coin, each worth `unitUsd` at the demo rate, so one script
 * serves coins of very different prices.
 */
import { describe, expect, inject, it } from "vitest";
import { api, createAccount } from "../api/helpers";
import { type CoreNodeAddress, coreRpc } from "../support/coin-nodes";
import { addOperator, operatorApi, signInOperator } from "../support/operator";

export type UtxoScenarioNode = CoreNodeAddress & { miner: string };

export type UtxoScenarioOptions = {
  coin: "BTC" | "LTC";
  /** The watcher's name in /health. */
  watcher: string;
  node: UtxoScenarioNode;
  addressPattern: RegExp;
  /** How many coins one unit is, and what it is worth in USD at the demo rate. */
  unit: number;
  unitUsd: number;
  /** The configured explorer link, with `{tx}` for the transaction id. */
  explorer: string;
  /**
   * After `invalidateblock`, Core puts the block's transactions back into its mempool and
   * `reconsiderblock` makes the block best again; bcoin empties its mempool and forgets the blocks, so
   * they are submitted again (`submitblock`) after `reconsiderblock`.
   */
  reorg: "core" | "bcoin";
};

export type Topup = {
  ref: string;
  status: string;
  deposit_address: string;
  deposit_amount: string;
  credited_usd: number;
  confirmations_required: number;
  received_amount: string;
  payments: {
    tx_hash: string;
    amount: string;
    confirmations: number;
    explorer_url?: string | null;
    dropped?: boolean;
    credited_usd?: number | null;
    credited_parts?: { kind: string; amount: string; rate_usd: string; usd: number }[];
  }[];
  demo: boolean;
};

export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const readTopup = (key: string, ref: string) => async () =>
  (await api(`/topups/${ref}`, { key })).body as unknown as Topup;
const balanceOf = async (key: string) => (await api("/account", { key })).body.balance_usd as number;
const usd = (cents: number) => Math.round(cents) / 100;

export function describeUtxoDeposits(options: UtxoScenarioOptions) {
  const { coin, node, unit, unitUsd } = options;
  const rpc = coreRpc(node);
  /** `units` of the coin as the node's RPC takes amounts (a JSON number; bcoin refuses strings). */
  const coins = (units: number) => Number((units * unit).toFixed(8));
  const worth = (units: number) => usd(units * unitUsd * 100);
  const pay = (address: string, units: number) =>
    rpc<string>("sendtoaddress", [address, coins(units)], "payer");
  const payExact = (address: string, amount: string) =>
    rpc<string>("sendtoaddress", [address, Number(amount)], "payer");
  const mine = (blocks: number) => rpc<string[]>("generatetoaddress", [blocks, node.miner]);

  async function newTopup(key: string, amountUsd: number): Promise<Topup> {
    const created = await api("/topups", { method: "POST", key, body: { amount: amountUsd, coin } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as unknown as Topup;
  }

  /** Waits until the watcher sees `txid` in the mempool, then mines the confirmations the top-up needs. */
  async function confirm(key: string, topup: Topup, txid: string) {
    await waitFor(readTopup(key, topup.ref), (t) => t.payments.some((p) => p.tx_hash === txid));
    await mine(topup.confirmations_required);
  }

  describe(`${coin} deposits read by the wallet-less UTXO watcher`, () => {
    it("paid in full: seen in the mempool, credited only at the required confirmations", async () => {
      const { apiKey } = await createAccount();
      const topup = await newTopup(apiKey, worth(1));
      expect(topup).toMatchObject({ deposit_amount: coins(1).toFixed(8), demo: false });
      expect(topup.deposit_address).toMatch(options.addressPattern);
      const required = topup.confirmations_required;
      const txid = await pay(topup.deposit_address, 1);
      const seen = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0);
      expect(seen.payments).toEqual([
        {
          tx_hash: txid,
          amount: coins(1).toFixed(8),
          confirmations: 0,
          explorer_url: options.explorer.replace("{tx}", txid),
          dropped: false,
          credited_usd: null,
          credited_parts: [],
        },
      ]);
      await mine(required - 1);
      const almost = await waitFor(
        readTopup(apiKey, topup.ref),
        (t) => t.payments[0]?.confirmations === required - 1,
      );
      expect(almost).toMatchObject({ status: "pending", credited_usd: 0 });
      await mine(1);
      const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
      expect(done.credited_usd).toBe(worth(1));
      // Paid as asked, in time: all of it at the locked rate, exactly the amount.
      expect(done.payments[0]).toMatchObject({
        credited_usd: worth(1),
        credited_parts: [{ kind: "quote", amount: coins(1).toFixed(8), usd: worth(1) }],
      });
      expect(await balanceOf(apiKey)).toBe(worth(1));
    });

    it("paid in two parts: the first is credited for its worth, the second completes it", async () => {
      const { apiKey } = await createAccount();
      const topup = await newTopup(apiKey, worth(1));
      await confirm(apiKey, topup, await pay(topup.deposit_address, 0.4));
      const partial = await waitFor(readTopup(apiKey, topup.ref), (t) => t.credited_usd > 0);
      expect(partial).toMatchObject({ status: "pending", credited_usd: worth(0.4) });
      await confirm(apiKey, topup, await pay(topup.deposit_address, 0.6));
      const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
      expect(done.credited_usd).toBe(worth(1));
      expect(done.payments).toHaveLength(2);
      expect(await balanceOf(apiKey)).toBe(worth(1));
    });

    it("overpaid: the excess is credited at the locked rate", async () => {
      const { apiKey } = await createAccount();
      const topup = await newTopup(apiKey, worth(0.5));
      expect(topup.deposit_amount).toBe(coins(0.5).toFixed(8));
      await confirm(apiKey, topup, await pay(topup.deposit_address, 0.6));
      const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
      expect(done.credited_usd).toBe(worth(0.6));
      expect(await balanceOf(apiKey)).toBe(worth(0.6));
    });

    it("paid twice to the same address: both payments are credited", async () => {
      const { apiKey } = await createAccount();
      const topup = await newTopup(apiKey, worth(0.3));
      await pay(topup.deposit_address, 0.3);
      await confirm(apiKey, topup, await pay(topup.deposit_address, 0.3));
      const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.credited_usd === worth(0.6));
      expect(done.status).toBe("completed");
      expect(done.payments).toHaveLength(2);
      expect(await balanceOf(apiKey)).toBe(worth(0.6));
    });

    it("paid after expiry: the late payment is still credited", async () => {
      const { apiKey } = await createAccount();
      const topup = await newTopup(apiKey, 40);
      const moved = await api("/demo/clock", { method: "POST", body: { advance_seconds: 31 * 60 } });
      expect(moved.status).toBe(200);
      const expired = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status !== "pending");
      expect(expired).toMatchObject({ status: "expired", credited_usd: 0 });
      await confirm(apiKey, topup, await payExact(topup.deposit_address, topup.deposit_amount));
      const late = await waitFor(readTopup(apiKey, topup.ref), (t) => t.credited_usd > 0);
      expect(late).toMatchObject({ status: "completed", credited_usd: 40 });
      expect(await balanceOf(apiKey)).toBe(40);
    });

    it("a reorg: the paying block invalidated before it confirms drops the payment back, then it counts once", async () => {
      const { apiKey, userId } = await createAccount();
      const topup = await newTopup(apiKey, worth(1));
      const required = topup.confirmations_required;
      const txid = await pay(topup.deposit_address, 1);
      await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0);
      const blocks = await mine(required - 1);
      const block = blocks[0] as string;
      const raw = await Promise.all(blocks.map((hash) => rpc<string>("getblock", [hash, 0])));
      await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === required - 1);
      const invalidate = async () => {
        await rpc("invalidateblock", [block]);
        if (options.reorg === "core") expect(await rpc<string[]>("getrawmempool")).toContain(txid);
      };
      const restore = async () => {
        await rpc("reconsiderblock", [block]);
        if (options.reorg === "bcoin") for (const hex of raw) await rpc("submitblock", [hex]);
      };

      await invalidate();
      const dropped = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === 0);
      expect(dropped).toMatchObject({ status: "pending", credited_usd: 0 });
      await restore();
      await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === required - 1);
      await mine(1);
      const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
      expect(done.credited_usd).toBe(worth(1));
      const tip = await rpc<number>("getblockcount");
      raw.push(await rpc<string>("getblock", [await rpc<string>("getblockhash", [tip]), 0]));

      // Reorged out after it was credited: the credit stands, the payment is flagged, nothing is posted twice.
      await invalidate();
      await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === 0);
      const health = await waitFor(
        async () => (await api("/health")).body as { watchers: { name: string; flagged_payments: number }[] },
        (h) => (h.watchers.find((w) => w.name === options.watcher)?.flagged_payments ?? 0) > 0,
      );
      expect(health.watchers.find((w) => w.name === options.watcher)?.flagged_payments).toBe(1);
      expect(await balanceOf(apiKey)).toBe(worth(1));
      // The operator finds it under "needs attention", with the facts to act on.
      const base = inject("baseUrl");
      const operator = await addOperator(inject("appEnv"), `nodes-${coin.toLowerCase()}`, "support");
      const session = await signInOperator(base, operator);
      const attention = await waitFor(
        () => operatorApi(base, session, "/payments"),
        (answer) => (answer.body.payments as { tx_hash: string }[]).some((p) => p.tx_hash === txid),
      );
      expect(
        (attention.body.payments as { tx_hash: string }[]).find((p) => p.tx_hash === txid),
      ).toMatchObject({
        flags: ["reorged"],
        coin,
        account_id: userId,
        credited_usd: worth(1),
        confirmations: 0,
        topup: { ref: topup.ref },
        review: null,
      });
      await restore();
      const again = await waitFor(
        readTopup(apiKey, topup.ref),
        (t) => (t.payments[0]?.confirmations ?? 0) >= required,
      );
      expect(again.credited_usd).toBe(worth(1));
      expect(await balanceOf(apiKey)).toBe(worth(1));
    });

    it("/health reports the watcher: node reachable, tip, cursor, lag, no node address", async () => {
      const tip = await rpc<number>("getblockcount");
      const health = await waitFor(
        async () => (await api("/health")).body as { watchers: Record<string, unknown>[] },
        (h) => h.watchers.some((w) => w.name === options.watcher && w.tip === tip && w.lag === 0),
      );
      const watcher = health.watchers.find((w) => w.name === options.watcher);
      expect(watcher).toMatchObject({ status: "ok", demo: false, cursor: tip, problem: null });
      expect(watcher).not.toHaveProperty("node");
    });
  });
}
