import { createWalletClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { fundNativeBalance, mintTestToken } from "@/lib/chain/test-token";
import { testTokenAbi } from "@/lib/chain/test-token-abi";
import { api, createAccount, errorCode } from "./helpers";

const chains = inject("chains");
const sender = privateKeyToAccount(generatePrivateKey());
const wallet = createWalletClient({ account: sender, transport: http(chains.ethereumRpc) });

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
});
