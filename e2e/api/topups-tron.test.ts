import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPublicClient, createWalletClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fundNativeBalance, mintTestToken } from "@/lib/demo-chain/test-token";
import { testTokenAbi } from "@/lib/demo-chain/test-token-abi";
import { evmHexToTron, tronToEvmHex } from "@/lib/rails/tron/address";
import { callApp, type RunningApp, startApp } from "../support/app-server";
import { reorgAway } from "../support/reorg";
import { type RpcProxy, startRpcProxy } from "../support/rpc-proxy";
import { seedWatchedTopups } from "../support/watched-topups";

/**
 * USDT (TRC-20) through the TRON watcher's log path. NO REAL TRON NODE IS USED: none can run here, so the
 * watcher reads anvil, whose Ethereum JSON-RPC (eth_blockNumber, eth_getLogs, eth_getBlockByNumber) is the
 * interface java-tron serves at /jsonrpc, with a TRC-20-shaped token (an ERC-20: same Transfer event).
 * Base58check addresses and solidified-block confirmations are unit-tested in lib/rails/tron/address.test.ts.
 * The node is read through a proxy that holds `eth_getLogs` to geth's limit of 1000 values per topic
 * position, with 1,100 other T… addresses watched beside the one paid. A reorg after credit is made with
 * anvil_reorg, as the EVM test does.
 */
const chains = inject("chains");
const sender = privateKeyToAccount(generatePrivateKey());
const wallet = createWalletClient({ account: sender, transport: http(chains.ethereumRpc) });
const chain = createPublicClient({ transport: http(chains.ethereumRpc), pollingInterval: 100 });
let app: RunningApp;
let proxy: RpcProxy;

const call = (path: string, init?: Parameters<typeof callApp>[2]) => callApp(app, path, init);

beforeAll(async () => {
  console.log("USDTTRC: no real TRON node was used; anvil stands in for java-tron's Ethereum-style JSON-RPC");
  await fundNativeBalance(chains.ethereumRpc, sender.address, parseEther("10"));
  await mintTestToken(chains.ethereumRpc, chains.usdt, sender.address, 1_000_000_000n);
  proxy = await startRpcProxy(chains.ethereumRpc);
  const dataDir = mkdtempSync(path.join(tmpdir(), "vps-tron-watched-"));
  const others = Array.from({ length: 1_100 }, () => evmHexToTron(privateKeyToAddress(generatePrivateKey())));
  await seedWatchedTopups(dataDir, { coin: "USDTTRC", network: "tron", addresses: others });
  app = await startApp({
    DATABASE_URL: "",
    DATA_DIR: dataDir,
    TRON_RPC_URL: proxy.url,
    // The same chain as the "solidity" node: every mined block counts as solidified.
    TRON_SOLIDITY_RPC_URL: chains.ethereumRpc,
    TRON_USDT_ADDRESS: evmHexToTron(chains.usdt),
    WATCHER_INTERVAL_MS: "300",
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await proxy?.stop();
});

describe("USDT (TRC-20) deposits: the TRON watcher's log path against anvil (no real TRON node)", () => {
  it("a TRC-20 Transfer to the top-up's T… address is credited once its block is solidified, with 1,100 others watched", async () => {
    const { api_key: key } = (await call("/account", { method: "POST" })) as { api_key: string };
    const topup = await call("/topups", { method: "POST", key, body: { amount: 50, coin: "USDTTRC" } });
    expect(topup).toMatchObject({ deposit_amount: "50.00", demo: false, confirmations_required: 19 });
    const address = topup.deposit_address as string;
    expect(address).toMatch(/^T/);
    const hash = await wallet.writeContract({
      chain: null,
      address: chains.usdt,
      abi: testTokenAbi,
      functionName: "transfer",
      args: [tronToEvmHex(address), 50_000_000n],
    });
    const deadline = Date.now() + 30_000;
    let now = topup;
    while (now.status !== "completed") {
      if (Date.now() > deadline) throw new Error(`not credited: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      now = await call(`/topups/${topup.ref}`, { key });
    }
    expect(now.credited_usd).toBe(50);
    expect((now.payments as { tx_hash: string; explorer_url: string }[])[0]).toMatchObject({
      tx_hash: hash,
      explorer_url: `https://tronscan.org/#/transaction/${hash}`,
    });
    expect((await call("/account", { key })).balance_usd).toBe(50);
    const health = (await call("/health")) as { watchers: { name: string; status: string }[] };
    expect(health.watchers.find((w) => w.name === "tron:usdt")?.status).toBe("ok");
  });

  it("a credited payment whose block a reorg takes away is flagged for the operator, never debited", async () => {
    const { api_key: key } = (await call("/account", { method: "POST" })) as { api_key: string };
    const topup = await call("/topups", { method: "POST", key, body: { amount: 40, coin: "USDTTRC" } });
    const flagged = async () =>
      ((await call("/health")) as { watchers: { name: string; flagged_payments: number }[] }).watchers.find(
        (w) => w.name === "tron:usdt",
      )?.flagged_payments ?? 0;
    const flaggedBefore = await flagged();
    const hash = await wallet.writeContract({
      chain: null,
      address: chains.usdt,
      abi: testTokenAbi,
      functionName: "transfer",
      args: [tronToEvmHex(topup.deposit_address as string), 40_000_000n],
    });
    const receipt = await chain.waitForTransactionReceipt({ hash });
    const read = () => call(`/topups/${topup.ref}`, { key });
    const waitUntil = async (done: (t: Record<string, unknown>) => boolean) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const now = await read();
        if (done(now)) return now;
        if (Date.now() > deadline) throw new Error(`still waiting: ${JSON.stringify(now)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    expect(await waitUntil((t) => t.status === "completed")).toMatchObject({ credited_usd: 40 });

    await reorgAway(chains.ethereumRpc, receipt.blockNumber, receipt.blockHash);
    expect(await chain.getTransactionReceipt({ hash }).catch(() => null)).toBeNull();
    const after = await waitUntil((t) => (t.payments as { confirmations: number }[])[0]?.confirmations === 0);
    // The credit stands (a credit is never taken back); the operator is told instead.
    expect(after).toMatchObject({ status: "completed", credited_usd: 40 });
    expect((await call("/account", { key })).balance_usd).toBe(40);
    const deadline = Date.now() + 10_000;
    while ((await flagged()) <= flaggedBefore) {
      if (Date.now() > deadline) throw new Error("the reorged payment was not flagged in /health");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await flagged()).toBe(flaggedBefore + 1);
  });
});
