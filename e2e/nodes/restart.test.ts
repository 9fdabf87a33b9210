import path from "node:path";
import { expect, inject, it } from "vitest";
import { startApp } from "../support/app-server";
import { coreRpc } from "../support/coin-nodes";

const nodes = inject("nodes");

const ltc = coreRpc(nodes.litecoin);

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

type Watcher = { name: string; status: string; cursor: number | null; tip: number | null };

// Two app starts and a dozen blocks: minutes on a machine booting guests beside this suite.
it("the app restarted mid-way: the watcher's cursor survives, the payment is credited once", {
  timeout: 240_000,
}, async () => {
  const env = {
    WATCHER_INTERVAL_MS: "300",
    LTC_RPC_URL: nodes.litecoin.rpcUrl,
    LTC_RPC_COOKIE_FILE: nodes.litecoin.cookieFile ?? "",
    LTC_CHAIN: "regtest",
  };
  const first = await startApp(env);
  const call = (base: string, path: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v1${path}`, init).then((r) => r.json() as Promise<Record<string, unknown>>);
  let key: string;
  let ref: string;
  let cursorBefore: number;
  try {
    key = (await call(first.url, "/account", { method: "POST" })).api_key as string;
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const topup = await call(first.url, "/topups", {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ amount: 85, coin: "LTC" }),
    });
    ref = topup.ref as string;
    await ltc("sendtoaddress", [topup.deposit_address, "1.0"], "payer");
    await ltc("generatetoaddress", [1, nodes.litecoin.miner], "payer");
    const seen = await waitFor(
      () => call(first.url, `/topups/${ref}`, { headers: auth }),
      (t) => (t.payments as { confirmations: number }[]).some((p) => p.confirmations === 1),
    );
    expect(seen.credited_usd).toBe(0);
    const tip = await ltc<number>("getblockcount");
    const health = await waitFor(
      () => call(first.url, "/health"),
      (h) => (h.watchers as Watcher[]).some((w) => w.name === "utxo:litecoin" && w.cursor === tip),
    );
    cursorBefore = (health.watchers as Watcher[]).find((w) => w.name === "utxo:litecoin")?.cursor ?? -1;
    expect(cursorBefore).toBeGreaterThan(0);
  } finally {
    await first.stop();
  }

  // Stopped with SIGTERM, the app gave its watcher lease back: the next instance need not wait it out.
  const { PGlite } = await import("@electric-sql/pglite");
  const stored = await PGlite.create({ dataDir: path.join(first.dataDir, "pglite") });
  const leases = await stored.query<{ lease_until: Date | null; scanned_block: number }>(
    "SELECT lease_until, scanned_block::int AS scanned_block FROM chain_cursors WHERE network = 'utxo:litecoin'",
  );
  await stored.close();
  expect(leases.rows).toEqual([{ lease_until: null, scanned_block: cursorBefore }]);

  // While the app is down the payment confirms; the restarted app picks up from its stored cursor.
  await ltc("generatetoaddress", [5, nodes.litecoin.miner], "payer");
  const second = await startApp({ ...env, DATA_DIR: first.dataDir });
  try {
    const auth = { authorization: `Bearer ${key}` };
    // Taken over at its first passes, before the 30 s lease would have run out (it was given back, above).
    const done = await waitFor(
      () => call(second.url, `/topups/${ref}`, { headers: auth }),
      (t) => t.status === "completed",
      25_000,
    );
    expect(done.credited_usd).toBe(85);
    const health = await waitFor(
      () => call(second.url, "/health"),
      // Health is cached for 2 s: wait for a report from after the restarted watcher's first poll.
      (h) =>
        (h.watchers as Watcher[]).some(
          (w) =>
            w.name === "utxo:litecoin" &&
            w.status === "ok" &&
            w.cursor === w.tip &&
            (w.tip ?? 0) > cursorBefore,
        ),
    );
    const watcher = (health.watchers as Watcher[]).find((w) => w.name === "utxo:litecoin");
    expect(watcher?.cursor, JSON.stringify(health)).toBeGreaterThanOrEqual(cursorBefore + 5);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // more polls: still one credit
    const account = await call(second.url, "/account", { headers: auth });
    expect(account.balance_usd).toBe(85);
  } finally {
    await second.stop();
  }
});
