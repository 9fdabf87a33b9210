/**
 * Push, with the poll as the backstop, on the suite's real nodes:
 *
 * - a second app whose watchers poll once a minute, its keys its own (a view-only Monero wallet of its own on
 *   the same monerod): each payment is seen and credited within seconds of its blocks, which only the nodes'
 *   push can do (litecoind's -blocknotify, bcoin's socket, monerod's ZMQ publisher);
 * - on the suite's app (polling every 500 ms), litecoind's notices lost on purpose: the poll credits the
 *   payment, health counts the lost notice, and the next notice makes the push ok again.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { generateDemoWatchOnlyKeys, watchOnlyKeyEnv } from "@/lib/rails/addresses";
import { moneroPrimaryAddress } from "@/lib/rails/monero/address";
import { api, createAccount } from "../api/helpers";
import { callApp, freePort, type RunningApp, startApp } from "../support/app-server";
import { blockNotifyControls } from "../support/block-notify";
import { coreRpc, moneroCall, startViewOnlyWallet } from "../support/coin-nodes";
import type { Topup } from "./utxo-scenarios";

const nodes = inject("nodes");
const xmr = inject("monero");
const notify = inject("blockNotify");
const ltc = coreRpc(nodes.litecoin);
const btc = coreRpc(nodes.bitcoin);

async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  what: string,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type Push = { status: string; missed: number; last_notice_at: string | null };
type Watcher = { name: string; push: Push | null };

/** A coin's payment and blocks, on the node the suite shares. */
type Coin = {
  code: "LTC" | "BTC" | "XMR";
  watcher: string;
  amountUsd: number;
  pay: (topup: Topup) => Promise<unknown>;
  mine: (blocks: number) => Promise<unknown>;
};

const COINS: Coin[] = [
  {
    code: "LTC",
    watcher: "utxo:litecoin",
    amountUsd: 85,
    pay: (t) => ltc("sendtoaddress", [t.deposit_address, Number(t.deposit_amount)], "payer"),
    mine: (blocks) => ltc("generatetoaddress", [blocks, nodes.litecoin.miner]),
  },
  {
    code: "BTC",
    watcher: "utxo:bitcoin",
    amountUsd: 97,
    pay: (t) => btc("sendtoaddress", [t.deposit_address, Number(t.deposit_amount)], "payer"),
    mine: (blocks) => btc("generatetoaddress", [blocks, nodes.bitcoin.miner]),
  },
  {
    code: "XMR",
    watcher: "xmr:monero",
    amountUsd: 40,
    pay: async (t) => {
      await moneroCall(xmr.payerUrl, "refresh");
      const piconero = Math.round(Number(t.deposit_amount) * 1e12);
      return moneroCall(xmr.payerUrl, "transfer", {
        destinations: [{ amount: piconero, address: t.deposit_address }],
      });
    },
    mine: (blocks) =>
      moneroCall(xmr.daemonUrl, "generateblocks", {
        amount_of_blocks: blocks,
        wallet_address: xmr.payerAddress,
      }),
  },
];

describe("an app whose watchers poll once a minute", () => {
  let app: RunningApp;
  let stopWallet: (() => Promise<void>) | undefined;
  let notifyUrl = "";
  const controls = blockNotifyControls(notify.dir);

  beforeAll(async () => {
    const keys = generateDemoWatchOnlyKeys();
    const notifyPort = await freePort();
    const wallet = await startViewOnlyWallet(xmr.daemonUrl, {
      address: moneroPrimaryAddress(keys),
      viewKey: keys.monero.viewKey,
    });
    stopWallet = wallet.stop;
    app = await startApp({
      ...watchOnlyKeyEnv(keys),
      WATCHER_INTERVAL_MS: "60000",
      LTC_RPC_URL: nodes.litecoin.rpcUrl,
      LTC_RPC_COOKIE_FILE: nodes.litecoin.cookieFile ?? "",
      LTC_CHAIN: "regtest",
      LTC_PUSH: "notify",
      DEPOSIT_NOTIFY_LISTEN: `127.0.0.1:${notifyPort}`,
      DEPOSIT_NOTIFY_SECRET: notify.secret,
      BTC_RPC_URL: nodes.bitcoin.rpcUrl,
      BTC_CHAIN: "regtest",
      BTC_PUSH: "bcoin",
      XMR_WALLET_RPC_URL: wallet.url,
      XMR_ZMQ_URL: xmr.zmqUrl,
    });
    notifyUrl = `http://127.0.0.1:${notifyPort}`;
    controls.add(notifyUrl);
  }, 240_000);

  afterAll(async () => {
    if (notifyUrl) controls.remove(notifyUrl);
    await app?.stop();
    await stopWallet?.();
  });

  it.each(COINS)(
    "$code: seen and credited within seconds of its blocks, by the node's push alone",
    {
      timeout: 90_000,
    },
    async (coin) => {
      const call = (route: string, init?: Parameters<typeof callApp>[2]) => callApp(app, route, init);
      const { api_key: key } = (await call("/account", { method: "POST" })) as { api_key: string };
      const topup = (await call("/topups", {
        method: "POST",
        key,
        body: { amount: coin.amountUsd, coin: coin.code },
      })) as unknown as Topup;
      expect(topup.deposit_address, JSON.stringify(topup)).toBeTruthy();
      const read = async () => (await call(`/topups/${topup.ref}`, { key })) as unknown as Topup;
      const required = topup.confirmations_required;
      await coin.pay(topup);
      // The payment's block: seen at once (no poll reads the mempool for another minute).
      await coin.mine(1);
      await until(read, (t) => t.payments[0]?.confirmations === 1, 10_000, `${coin.code} payment seen`).catch(
        async (error: Error) => {
          // The evidence: what health says of the watcher and its push, and the app's last words.
          const health = (await call("/health")) as { watchers: Watcher[] };
          const watcher = health.watchers.find((w) => w.name === coin.watcher);
          throw new Error(
            `${error.message}\nwatcher: ${JSON.stringify(watcher)}\napp: ${app.logs().slice(-3_000)}`,
          );
        },
      );
      if (required > 2) {
        await coin.mine(required - 2);
        await until(
          read,
          (t) => t.payments[0]?.confirmations === required - 1,
          10_000,
          `${coin.code} one block short`,
        );
      }
      const started = Date.now();
      await coin.mine(1);
      const done = await until(read, (t) => t.status === "completed", 10_000, `${coin.code} credited`);
      const elapsed = Date.now() - started;
      console.log(
        `${coin.code}: confirming block -> credited as the API shows it in ${elapsed} ms (poll: 60 s)`,
      );
      expect(done.credited_usd).toBe(coin.amountUsd);
      expect(elapsed).toBeLessThan(5_000);
      // Health is cached for 2 s: read until a report from after the credit.
      const push = await until(
        async () =>
          ((await call("/health")) as { watchers: Watcher[] }).watchers.find((w) => w.name === coin.watcher)
            ?.push,
        (state) => state?.status === "ok",
        10_000,
        `${coin.code} push ok`,
      );
      expect(push).toMatchObject({ status: "ok", missed: 0 });
    },
  );
});

describe("notices lost on purpose", () => {
  const controls = blockNotifyControls(notify.dir);
  const litecoinPush = async () =>
    ((await api("/health")).body.watchers as Watcher[]).find((w) => w.name === "utxo:litecoin")?.push;

  it("litecoind's: the poll credits the payment, health counts the lost notice, the next notice ends it", {
    timeout: 90_000,
  }, async () => {
    // A block, so the push has announced one since the app started (no other test may have mined one yet).
    await ltc("generatetoaddress", [1, nodes.litecoin.miner]);
    const before = await until(litecoinPush, (push) => push?.status === "ok", 20_000, "litecoin push");
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 85, coin: "LTC" } }))
      .body as unknown as Topup;
    const read = async () => (await api(`/topups/${topup.ref}`, { key: apiKey })).body as unknown as Topup;
    controls.lose(true);
    try {
      await ltc("sendtoaddress", [topup.deposit_address, Number(topup.deposit_amount)], "payer");
      await ltc("generatetoaddress", [topup.confirmations_required, nodes.litecoin.miner]);
      const done = await until(read, (t) => t.status === "completed", 20_000, "credited by the poll");
      expect(done.credited_usd).toBe(85);
      const lost = await until(
        litecoinPush,
        (push) => push?.status === "degraded",
        20_000,
        "the lost notice counted",
      );
      expect(lost?.missed).toBeGreaterThan(before?.missed ?? 0);
    } finally {
      controls.lose(false);
    }
    await ltc("generatetoaddress", [1, nodes.litecoin.miner]);
    await until(litecoinPush, (push) => push?.status === "ok", 20_000, "the push ok again");

    // The payment keeps the time of the block that completed its confirmations, beside its credit's (read
    // where the suite runs on PostgreSQL, as CI runs it: an embedded database is the app's alone).
    const databaseUrl = inject("testDatabaseUrl");
    if (!databaseUrl) return;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ block: string; blockAt: Date; creditedAt: Date }>(
        `SELECT p.block_number AS block, p.confirming_block_at AS "blockAt", p.confirmed_at AS "creditedAt"
           FROM deposit_payments p JOIN topups t ON t.id = p.topup_id WHERE t.ref = $1`,
        [topup.ref],
      );
      const [payment] = rows;
      const confirming = await ltc<string>("getblockhash", [
        Number(payment?.block) + topup.confirmations_required - 1,
      ]);
      const header = await ltc<{ time: number }>("getblockheader", [confirming, true]);
      expect(payment?.blockAt).toEqual(new Date(header.time * 1000));
      // A block's time is whole seconds, and regtest blocks mined together run ahead of the clock (each must
      // follow the median of the last eleven): the credit comes after it, within that slack.
      expect(payment?.creditedAt.getTime()).toBeGreaterThanOrEqual(header.time * 1000 - 5_000);
    } finally {
      await client.end();
    }
  });
});
