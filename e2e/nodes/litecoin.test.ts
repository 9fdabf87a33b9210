import { describe, expect, inject, it } from "vitest";
import { api, createAccount, errorCode } from "../api/helpers";
import { type RunningApp, startApp } from "../support/app-server";
import { coreRpc } from "../support/coin-nodes";
import { describeUtxoDeposits, readTopup, type Topup, waitFor } from "./utxo-scenarios";

describeUtxoDeposits({
  coin: "LTC",
  watcher: "utxo:litecoin",
  node: inject("nodes").litecoin,
  addressPattern: /^rltc1q/,
  unit: 1,
  unitUsd: 85,
  explorer: "https://explorer.example/ltc/tx/{tx}",
  reorg: "core",
});

describe("a payment that vanishes from the mempool", () => {
  const node = inject("nodes").litecoin;
  const ltc = coreRpc(node);
  const sats = (value: number) => BigInt(Math.round(value * 1e8));
  const coins = (units: bigint) => Number(units) / 1e8;

  it("double-spent by another transaction mined first: marked dropped, never credited", async () => {
    const { apiKey } = await createAccount();
    const created = await api("/topups", { method: "POST", key: apiKey, body: { amount: 85, coin: "LTC" } });
    const topup = created.body as unknown as Topup;
    const paid = await ltc<string>("sendtoaddress", [topup.deposit_address, 1], "payer");
    const seen = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.length > 0);
    expect(seen.payments[0]).toMatchObject({ tx_hash: paid, confirmations: 0, dropped: false });

    // The payer spends the same coins back to itself, and that spend is mined (`generateblock` with it);
    // Litecoin Core relays no replacements, so this is how a payment leaves its mempool unmined.
    const { hex } = await ltc<{ hex: string }>("gettransaction", [paid], "payer");
    const { vin } = await ltc<{ vin: { txid: string; vout: number }[] }>("decoderawtransaction", [hex]);
    let total = 0n;
    for (const input of vin) {
      const previous = await ltc<{ hex: string }>("gettransaction", [input.txid], "payer");
      const decoded = await ltc<{ vout: { value: number }[] }>("decoderawtransaction", [previous.hex]);
      total += sats(decoded.vout[input.vout]?.value ?? 0);
    }
    const back = await ltc<string>("getnewaddress", ["", "bech32"], "payer");
    const unsigned = await ltc<string>("createrawtransaction", [
      vin.map(({ txid, vout }) => ({ txid, vout })),
      { [back]: coins(total - 1_000_000n) },
    ]);
    const signed = await ltc<{ hex: string }>("signrawtransactionwithwallet", [unsigned], "payer");
    await ltc("generateblock", [node.miner, [signed.hex]]);
    expect(await ltc<string[]>("getrawmempool")).not.toContain(paid);

    const dropped = await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments[0]?.dropped === true);
    expect(dropped).toMatchObject({ status: "pending", received_amount: "0.00000000", credited_usd: 0 });
    await ltc("generatetoaddress", [6, node.miner]);
    const tip = await ltc<number>("getblockcount");
    await waitFor(
      async () => (await api("/health")).body as { watchers: { name: string; cursor: number }[] },
      (h) => h.watchers.some((w) => w.name === "utxo:litecoin" && w.cursor === tip),
    );
    const after = await readTopup(apiKey, topup.ref)();
    expect(after).toMatchObject({ status: "pending", credited_usd: 0 });
    expect(after.payments).toEqual([
      expect.objectContaining({ tx_hash: paid, dropped: true, confirmations: 0 }),
    ]);

    // A real payment afterwards completes the top-up, credited once.
    const second = await ltc<string>("sendtoaddress", [topup.deposit_address, 1], "payer");
    await waitFor(readTopup(apiKey, topup.ref), (t) => t.payments.some((p) => p.tx_hash === second));
    await ltc("generatetoaddress", [6, node.miner]);
    const done = await waitFor(readTopup(apiKey, topup.ref), (t) => t.status === "completed");
    expect(done.credited_usd).toBe(85);
    expect((await api("/account", { key: apiKey })).body.balance_usd).toBe(85);
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
      // Plain words in public; the address and the raw error are in the log only.
      // (Port 9 is one that fetch refuses to call at all.)
      expect(health.watchers.find((w) => w.name === "utxo:litecoin")?.problem).toBe(
        "The node's URL names a port HTTP clients refuse to call: configure another.",
      );
      expect(second.logs()).toMatch(
        /deposit watcher utxo:litecoin: its node is unavailable: fetch failed: bad port/,
      );
      const refused = await fetch(`${url}/topups`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ amount: 30, coin: "LTC" }),
      });
      const body = (await refused.json()) as { error: string; message: string };
      expect(refused.status).toBe(400);
      expect(errorCode({ status: 400, headers: refused.headers, body })).toBe("coin_unavailable");
      expect(body.message).toMatch(/^LTC deposits are paused/);
      expect(body.message).not.toMatch(/127\.0\.0\.1|fetch failed|bad port/);
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
