import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { api, createAccount, errorCode } from "../api/helpers";
import { type RunningApp, startApp } from "../support/app-server";

const nodes = inject("nodes");

async function ltc<T = unknown>(method: string, params: unknown[] = [], wallet?: string): Promise<T> {
  const auth = Buffer.from(readFileSync(nodes.litecoinCookie, "utf8").trim()).toString("base64");
  const response = await fetch(wallet ? `${nodes.litecoinRpc}wallet/${wallet}` : nodes.litecoinRpc, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Basic ${auth}` },
    body: JSON.stringify({ jsonrpc: "1.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result: T; error: { message: string } | null };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const pay = (address: string, amount: string) => ltc<string>("sendtoaddress", [address, amount], "payer");
const mine = (blocks: number) => ltc<string[]>("generatetoaddress", [blocks, nodes.miner], "payer");

type Topup = {
  ref: string;
  status: string;
  deposit_address: string;
  deposit_amount: string;
  credited_usd: number;
  confirmations_required: number;
  payments: { tx_hash: string; amount: string; confirmations: number }[];
  demo: boolean;
};

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const readTopup = (key: string, ref: string) => async () =>
  (await api(`/topups/${ref}`, { key })).body as unknown as Topup;
const balanceOf = async (key: string) => (await api("/account", { key })).body.balance_usd as number;

async function newTopup(key: string, amount: number): Promise<Topup> {
  const created = await api("/topups", { method: "POST", key, body: { amount, coin: "LTC" } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as unknown as Topup;
}

/** Sends, waits until the watcher sees it in the mempool, confirms it fully and returns the top-up. */
async function payAndConfirm(key: string, topup: Topup, amount: string) {
  const txid = await pay(topup.deposit_address, amount);
  await waitFor(readTopup(key, topup.ref), (t) => t.payments.some((p) => p.tx_hash === txid));
  await mine(topup.confirmations_required);
  return txid;
}

describe("Litecoin deposits read from litecoind (regtest) by the wallet-less UTXO watcher", () => {
  it("paid in full: seen in the mempool, credited only at 6 confirmations", async () => {
    const { apiKey } = await createAccount();
    const topup = await newTopup(apiKey, 85);
    expect(topup).toMatchObject({ deposit_amount: "1.00000000", confirmations_required: 6, demo: false });
    expect(topup.deposit_address).toMatch(/^rltc1q/);
    const txid = await pay(topup.deposit_address, "1.0");
    const seen = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0);
    expect(seen.payments).toEqual([
      {
        tx_hash: txid,
        amount: "1.00000000",
        confirmations: 0,
        explorer_url: `https://explorer.example/ltc/tx/${txid}`,
      },
    ]);
    await mine(5);
    const five = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === 5);
    expect(five).toMatchObject({ status: "pending", credited_usd: 0 });
    await mine(1);
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
    expect(done.credited_usd).toBe(85);
    expect(await balanceOf(apiKey)).toBe(85);
  });

  it("paid in two parts: the first is credited for its worth, the second completes it", async () => {
    const { apiKey } = await createAccount();
    const topup = await newTopup(apiKey, 85);
    await payAndConfirm(apiKey, topup, "0.4");
    const partial = await waitFor(readTopup(apiKey, topup.ref), (t) => t.credited_usd > 0);
    expect(partial).toMatchObject({ status: "pending", credited_usd: 34 });
    await payAndConfirm(apiKey, topup, "0.6");
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
    expect(done.credited_usd).toBe(85);
    expect(done.payments).toHaveLength(2);
    expect(await balanceOf(apiKey)).toBe(85);
  });

  it("overpaid: the excess is credited at the locked rate", async () => {
    const { apiKey } = await createAccount();
    const topup = await newTopup(apiKey, 42.5);
    expect(topup.deposit_amount).toBe("0.50000000");
    await payAndConfirm(apiKey, topup, "0.6");
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
    expect(done.credited_usd).toBe(51); // 42.50 + 0.1 LTC at 85 USD
    expect(await balanceOf(apiKey)).toBe(51);
  });

  it("paid twice to the same address: both payments are credited", async () => {
    const { apiKey } = await createAccount();
    const topup = await newTopup(apiKey, 25.5);
    await pay(topup.deposit_address, "0.3");
    await payAndConfirm(apiKey, topup, "0.3");
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.credited_usd === 51);
    expect(done.status).toBe("completed");
    expect(done.payments).toHaveLength(2);
    expect(await balanceOf(apiKey)).toBe(51);
  });

  it("paid after expiry: the late payment is still credited", async () => {
    const { apiKey } = await createAccount();
    const topup = await newTopup(apiKey, 40);
    const moved = await api("/demo/clock", { method: "POST", body: { advance_seconds: 31 * 60 } });
    expect(moved.status).toBe(200);
    const expired = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status !== "pending");
    expect(expired).toMatchObject({ status: "expired", credited_usd: 0 });
    const units = topup.deposit_amount;
    await payAndConfirm(apiKey, topup, units);
    const late = await waitFor(readTopup(apiKey, topup.ref), (t) => t.credited_usd > 0);
    expect(late).toMatchObject({ status: "completed", credited_usd: 40 });
    expect(await balanceOf(apiKey)).toBe(40);
  });

  it("a reorg: the paying block invalidated before it confirms drops the payment back, then it counts once", async () => {
    const { apiKey } = await createAccount();
    const topup = await newTopup(apiKey, 85);
    const txid = await pay(topup.deposit_address, "1.0");
    await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0);
    const [block] = await mine(2);
    await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === 2);
    await ltc("invalidateblock", [block]);
    const dropped = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === 0);
    expect(dropped).toMatchObject({ status: "pending", credited_usd: 0 });
    expect(await ltc<string[]>("getrawmempool")).toContain(txid);
    await ltc("reconsiderblock", [block]);
    await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === 2);
    await mine(4);
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
    expect(done.credited_usd).toBe(85);

    // Reorged out after it was credited: the credit stands, the payment is flagged, nothing is posted twice.
    await ltc("invalidateblock", [block]);
    await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.confirmations === 0);
    const health = await waitFor(
      async () => (await api("/health")).body as { watchers: { name: string; flagged_payments: number }[] },
      (h) => (h.watchers.find((w) => w.name === "utxo:litecoin")?.flagged_payments ?? 0) > 0,
    );
    expect(health.watchers.find((w) => w.name === "utxo:litecoin")?.flagged_payments).toBe(1);
    expect(await balanceOf(apiKey)).toBe(85);
    await ltc("reconsiderblock", [block]);
    const again = await waitFor(
      readTopup(apiKey, topup.ref),
      (t) => (t.payments[0]?.confirmations ?? 0) >= 6,
    );
    expect(again.credited_usd).toBe(85);
    expect(await balanceOf(apiKey)).toBe(85);
  });

  it("/health reports the watcher: node reachable, tip, cursor, lag", async () => {
    const tip = await ltc<number>("getblockcount");
    const health = await waitFor(
      async () => (await api("/health")).body as { watchers: Record<string, unknown>[] },
      (h) => h.watchers.some((w) => w.name === "utxo:litecoin" && w.tip === tip && w.lag === 0),
    );
    const watcher = health.watchers.find((w) => w.name === "utxo:litecoin");
    expect(watcher).toMatchObject({
      status: "ok",
      networks: ["litecoin"],
      demo: false,
      cursor: tip,
      error: null,
    });
    expect(String(watcher?.node)).not.toContain("@");
  });
});

describe("a node that is down", () => {
  let second: RunningApp | undefined;

  it("makes new top-ups in its coin coin_unavailable with the reason, and health says why", {
    timeout: 120_000,
  }, async () => {
    const env = inject("appEnv");
    // A second app on its own database whose Litecoin node does not answer (a closed loopback port).
    second = await startApp({
      ENABLE_TEST_CLOCK: "1",
      WATCHER_INTERVAL_MS: "300",
      LTC_RPC_URL: "http://127.0.0.1:9/",
      LTC_CHAIN: env.LTC_CHAIN ?? "regtest",
    });
    try {
      const url = `${second.url}/api/v1`;
      const account = await fetch(`${url}/account`, { method: "POST" }).then((r) => r.json());
      const health = await waitFor(
        async () =>
          (await fetch(`${url}/health`).then((r) => r.json())) as { watchers: Record<string, unknown>[] },
        (h) => h.watchers.some((w) => w.name === "utxo:litecoin" && w.status === "unreachable"),
      );
      expect(String(health.watchers.find((w) => w.name === "utxo:litecoin")?.error)).toMatch(
        /ECONNREFUSED|fetch/,
      );
      const refused = await fetch(`${url}/topups`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ amount: 30, coin: "LTC" }),
      });
      const body = (await refused.json()) as { error: string; message: string };
      expect(refused.status).toBe(400);
      expect(errorCode({ status: 400, headers: refused.headers, body })).toBe("coin_unavailable");
      expect(body.message).toMatch(/litecoin node is unavailable/);
      // Other coins are not affected.
      const btc = await fetch(`${url}/topups`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ amount: 30, coin: "BTC" }),
      });
      expect(btc.status).toBe(201);
    } finally {
      await second.stop();
    }
  });
});
