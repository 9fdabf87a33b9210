import { describe, expect, inject, it } from "vitest";
import { errorCode } from "../api/helpers";
import { type RunningApp, startApp } from "../support/app-server";
import { describeUtxoDeposits, waitFor } from "./utxo-scenarios";

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
