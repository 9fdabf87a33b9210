import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPublicClient, createWalletClient, type Hex, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import artifact from "@/lib/demo-chain/contracts/forwarder.json";
import { forwarderAbi } from "@/lib/demo-chain/forwarder-abi";
import { fundNativeBalance, mintTestToken } from "@/lib/demo-chain/test-token";
import { testTokenAbi } from "@/lib/demo-chain/test-token-abi";
import { callApp, startApp } from "../support/app-server";
import { reorgAway } from "../support/reorg";
import { GETH_MAX_PER_POSITION } from "../support/rpc-proxy";
import { until } from "../support/until";
import { seedWatchedTopups } from "../support/watched-topups";
import { api, createAccount, errorCode } from "./helpers";

const chains = inject("chains");
const sender = privateKeyToAccount(generatePrivateKey());
const wallet = createWalletClient({ account: sender, transport: http(chains.ethereumRpc) });
const chain = createPublicClient({ transport: http(chains.ethereumRpc), pollingInterval: 100 });

type Topup = {
  ref: string;
  status: string;
  deposit_address: `0x${string}`;
  deposit_amount: string;
  credited_usd: number;
  confirmations_required: number;
  payments: { tx_hash: string; amount: string; confirmations: number }[];
  demo: boolean;
};

async function waitForTopup(key: string, ref: string, done: (topup: Topup) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const topup = (await api(`/topups/${ref}`, { key })).body as unknown as Topup;
    if (done(topup)) return topup;
    if (Date.now() > deadline) throw new Error(`top-up ${ref} stuck: ${JSON.stringify(topup)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const balanceOf = async (key: string) => (await api("/account", { key })).body.balance_usd as number;

const evmWatcherHealth = async () =>
  ((await api("/health")).body.watchers as { name: string; status: string; flagged_payments: number }[]).find(
    (watcher) => watcher.name === "evm:ethereum",
  );

beforeAll(async () => {
  await fundNativeBalance(chains.ethereumRpc, sender.address, parseEther("100"));
  await mintTestToken(chains.ethereumRpc, chains.usdt, sender.address, 10_000_000_000n);
});

describe("deposits confirmed by the EVM watcher on a local Ethereum chain", () => {
  it("ETH: a transfer of the asked amount completes the top-up after its confirmations", async () => {
    const { apiKey } = await createAccount();
    const created = await api("/topups", { method: "POST", key: apiKey, body: { amount: 32, coin: "ETH" } });
    expect(created.status).toBe(201);
    const topup = created.body as unknown as Topup;
    expect(topup.demo).toBe(false);
    expect(topup.deposit_amount).toBe("0.01000000"); // 32 USD at 3,200 USD/ETH
    const hash = await wallet.sendTransaction({
      chain: null,
      to: topup.deposit_address,
      value: parseEther(topup.deposit_amount),
    });
    const seen = await waitForTopup(apiKey, topup.ref, (t) => t.payments.length > 0);
    expect(seen.payments[0]?.tx_hash).toBe(hash);
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(32);
    expect(done.payments[0]?.confirmations).toBeGreaterThanOrEqual(done.confirmations_required);
    expect(await balanceOf(apiKey)).toBe(32);
  });

  it("USDT (ERC-20): a partial transfer is credited for its worth, the rest completes it", async () => {
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 100, coin: "USDT" } }))
      .body as unknown as Topup;
    expect(topup.deposit_amount).toBe("100.00");
    const transfer = (units: bigint) =>
      wallet.writeContract({
        chain: null,
        address: chains.usdt,
        abi: testTokenAbi,
        functionName: "transfer",
        args: [topup.deposit_address, units],
      });
    await transfer(30_000_000n);
    const partial = await waitForTopup(apiKey, topup.ref, (t) => t.credited_usd > 0);
    expect(partial.status).toBe("pending");
    expect(partial.credited_usd).toBe(30);
    await transfer(70_000_000n);
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(100);
    expect(done.payments).toHaveLength(2);
    expect(await balanceOf(apiKey)).toBe(100);
  });

  it("ETH sent to a USDT top-up's address is not taken for USDT", async () => {
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 25, coin: "USDT" } }))
      .body as unknown as Topup;
    await wallet.sendTransaction({ chain: null, to: topup.deposit_address, value: parseEther("1") });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = (await api(`/topups/${topup.ref}`, { key: apiKey })).body as unknown as Topup;
    expect(after.payments).toEqual([]);
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it("real-chain top-ups cannot be paid by simulation", async () => {
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 25, coin: "ETH" } }))
      .body as unknown as Topup;
    const result = await api(`/demo/topups/${topup.ref}/pay`, { method: "POST", key: apiKey, body: {} });
    expect(result.status).toBe(409);
    expect(errorCode(result)).toBe("not_simulated");
  });

  it("ETH: a credited payment whose block a reorg takes away is flagged for the operator, never debited", async () => {
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 32, coin: "ETH" } }))
      .body as unknown as Topup;
    const flaggedBefore = (await evmWatcherHealth())?.flagged_payments ?? 0;
    const hash = await wallet.sendTransaction({
      chain: null,
      to: topup.deposit_address,
      value: parseEther(topup.deposit_amount),
    });
    const receipt = await chain.waitForTransactionReceipt({ hash });
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(32);

    await reorgAway(chains.ethereumRpc, receipt.blockNumber, receipt.blockHash);
    expect(await chain.getTransactionReceipt({ hash }).catch(() => null)).toBeNull();
    const after = await waitForTopup(apiKey, topup.ref, (t) => t.payments[0]?.confirmations === 0);
    // The credit stands (a credit is never taken back); the operator is told instead.
    expect(after).toMatchObject({ status: "completed", credited_usd: 32 });
    expect(await balanceOf(apiKey)).toBe(32);
    const deadline = Date.now() + 10_000;
    while (((await evmWatcherHealth())?.flagged_payments ?? 0) <= flaggedBefore) {
      if (Date.now() > deadline) throw new Error("the reorged payment was not flagged in /health");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect((await evmWatcherHealth())?.flagged_payments).toBe(flaggedBefore + 1);
  });

  it("ETH sent by a contract's internal call is credited; ether sent inside a call that was undone is not", async () => {
    const deployed = await chain.waitForTransactionReceipt({
      hash: await wallet.deployContract({
        chain: null,
        abi: forwarderAbi,
        bytecode: artifact.bytecode as Hex,
      }),
    });
    const forwarder = deployed.contractAddress as `0x${string}`;
    const { apiKey } = await createAccount();
    // A node that answered slowly on a busy machine reads as unreachable for a moment (`coin_unavailable`,
    // until the watcher's next poll reaches it): ask again then, as a client would.
    let created = await api("/topups", { method: "POST", key: apiKey, body: { amount: 32, coin: "ETH" } });
    for (let tries = 0; created.body.error === "coin_unavailable" && tries < 30; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      created = await api("/topups", { method: "POST", key: apiKey, body: { amount: 32, coin: "ETH" } });
    }
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const topup = created.body as unknown as Topup;
    const send = (functionName: "forward" | "forwardUndone") =>
      wallet.writeContract({
        chain: null,
        address: forwarder,
        abi: forwarderAbi,
        functionName,
        args: [topup.deposit_address],
        value: parseEther(topup.deposit_amount),
      });
    const undone = await chain.waitForTransactionReceipt({ hash: await send("forwardUndone") });
    expect(undone.status).toBe("success");
    expect(await chain.getBalance({ address: topup.deposit_address })).toBe(0n);
    const forwarded = await send("forward");
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(32);
    expect(done.payments.map((payment) => payment.tx_hash)).toEqual([forwarded]);
    expect(await balanceOf(apiKey)).toBe(32);
  });
});

describe("the EVM watcher with more watched addresses than geth accepts in one log filter", () => {
  it("a USDT payment to a fresh top-up is credited while 1,100 other addresses are watched", {
    timeout: 120_000,
  }, async () => {
    // Past geth's limit of 1000 values per topic position, which the watcher's RPC proxy enforces.
    const others = Array.from({ length: 1_100 }, () => privateKeyToAddress(generatePrivateKey()));
    expect(others.length).toBeGreaterThan(GETH_MAX_PER_POSITION);
    const dataDir = mkdtempSync(path.join(tmpdir(), "vps-evm-watched-"));
    await seedWatchedTopups(dataDir, { coin: "USDT", network: "ethereum", addresses: others });
    const app = await startApp({
      ...inject("appEnv"),
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      EVM_RPC_URL: chains.ethereumWatcherRpc,
    });
    try {
      const call = (route: string, init?: Parameters<typeof callApp>[2]) => callApp(app, route, init);
      const { api_key: key } = (await call("/account", { method: "POST" })) as { api_key: string };
      const topup = (await call("/topups", {
        method: "POST",
        key,
        body: { amount: 40, coin: "USDT" },
      })) as Topup;
      expect(topup.deposit_amount).toBe("40.00");
      const hash = await wallet.writeContract({
        chain: null,
        address: chains.usdt,
        abi: testTokenAbi,
        functionName: "transfer",
        args: [topup.deposit_address, 40_000_000n],
      });
      const deadline = Date.now() + 60_000;
      let now = topup;
      while (now.status !== "completed") {
        if (Date.now() > deadline) throw new Error(`not credited: ${JSON.stringify(now)}\n${app.logs()}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
        now = (await call(`/topups/${topup.ref}`, { key })) as Topup;
      }
      expect(now.credited_usd).toBe(40);
      expect(now.payments.map((payment) => payment.tx_hash)).toEqual([hash]);
      const health = (await call("/health")) as { watchers: { name: string; status: string }[] };
      expect(health.watchers.find((w) => w.name === "evm:ethereum")?.status).toBe("ok");
    } finally {
      await app.stop();
    }
  });
});

describe("the EVM watcher woken by its node's new heads (eth_subscribe over WebSocket)", () => {
  type Push = { status: string; missed: number };
  const watcherPush = async (call: (route: string) => Promise<Record<string, unknown>>) =>
    ((await call("/health")).watchers as { name: string; push: Push | null }[]).find(
      (watcher) => watcher.name === "evm:ethereum",
    )?.push;
  const sharedPush = () => watcherPush(async (route) => (await api(route)).body);

  it("heads lost without a word: the poll credits the payment, counts them lost, and subscribes again", async () => {
    const proxy = async (command: Record<string, unknown>) =>
      (await fetch(chains.ethereumWsProxyControl, { method: "POST", body: JSON.stringify(command) }).then(
        (r) => r.json(),
      )) as { connections: number };
    const before = await until(sharedPush, (push) => push?.status === "ok", "the push ok");
    const { apiKey } = await createAccount();
    const topup = (await api("/topups", { method: "POST", key: apiKey, body: { amount: 32, coin: "ETH" } }))
      .body as unknown as Topup;
    // The subscription dies silently, as a provider's does: the socket stays open, no head comes.
    const { connections } = await proxy({ silence: true });
    await wallet.sendTransaction({
      chain: null,
      to: topup.deposit_address,
      value: parseEther(topup.deposit_amount),
    });
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(32);
    const after = await until(
      sharedPush,
      (push) => (push?.missed ?? 0) > (before?.missed ?? 0) && push?.status === "ok",
      "lost heads counted, then the push ok again",
    );
    expect(after?.missed).toBeGreaterThan(before?.missed ?? 0);
    // It was ok again on a new subscription: the watcher dropped the silent one and subscribed anew.
    expect((await proxy({})).connections).toBeGreaterThan(connections);
  });

  // An app of its own on PGlite: the same test whichever database the suite runs on, so it runs once.
  it.runIf(inject("dbTarget") === "pglite")(
    "with its poll once a minute, a payment is credited within seconds of its blocks",
    {
      timeout: 120_000,
    },
    async () => {
      const app = await startApp({
        ...inject("appEnv"),
        DATABASE_URL: "",
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-evm-push-")),
        WATCHER_INTERVAL_MS: "60000",
        EVM_WS_URL: chains.ethereumWs,
      });
      try {
        const call = (route: string, init?: Parameters<typeof callApp>[2]) => callApp(app, route, init);
        await until(
          () => watcherPush(call),
          (push) => push?.status === "ok",
          "the push ok",
        );
        const { api_key: key } = (await call("/account", { method: "POST" })) as { api_key: string };
        const topup = (await call("/topups", {
          method: "POST",
          key,
          body: { amount: 32, coin: "ETH" },
        })) as Topup;
        const sent = Date.now();
        const hash = await wallet.sendTransaction({
          chain: null,
          to: topup.deposit_address,
          value: parseEther(topup.deposit_amount),
        });
        const done = await until(
          async () => (await call(`/topups/${topup.ref}`, { key })) as Topup,
          (t) => t.status === "completed",
          "credited",
          20_000,
        );
        // Three confirmations on a chain of one block a second, well inside the minute between polls.
        const elapsed = Date.now() - sent;
        console.log(`ETH: sent -> credited (3 confirmations, 1 s blocks) in ${elapsed} ms; poll: 60 s`);
        expect(done.payments.map((payment) => payment.tx_hash)).toEqual([hash]);
        expect(elapsed).toBeLessThan(15_000);
        expect((await watcherPush(call))?.status).toBe("ok");
      } finally {
        await app.stop();
      }
    },
  );
});
