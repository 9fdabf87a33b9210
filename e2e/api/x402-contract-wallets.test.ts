/**
 * Contract-wallet payers (ERC-1271) on the local Base chain. Whether such a wallet signed can only be asked
 * by running its code on the node every settlement needs, so each call that can run it carries an explicit
 * gas limit: a wallet whose `isValidSignature` burns all the gas it is given is refused quickly, costs the
 * node at most the limit per attempt, and holds up nobody else. Honest contract wallets still pay.
 */
import { randomBytes } from "node:crypto";
import {
  getAddress,
  type Hex,
  type PrivateKeyAccount,
  serializeErc6492Signature,
  toFunctionSelector,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { deployTestSmartWallet, gasUsedByCall, NEVER_BURNS } from "@/lib/demo-chain/test-smart-wallet";
import { mintTestToken } from "@/lib/demo-chain/test-token";
import { SETTLEMENT_GAS, SIGNATURE_CHECK_GAS } from "@/lib/rails/x402/payer-code";
import { createAccount, errorCode } from "./helpers";
import {
  balanceOf,
  base,
  fundedWallet,
  paymentHeader,
  payTopup,
  relayerNonce,
  settlementNode,
  signPayment,
  usdcBalance,
} from "./x402-signing";

const chains = inject("chains");
const USDC = 1_000_000n;

/** Token reads that name a payer but run only the token's own code. */
const TOKEN_READS = [
  toFunctionSelector("balanceOf(address)"),
  toFunctionSelector("authorizationState(address,bytes32)"),
];

type RecordedCall = { method?: string; params?: unknown[] };
type CallObject = { to?: string; data?: string; input?: string; gas?: string };

let owner: PrivateKeyAccount;
beforeAll(() => {
  owner = privateKeyToAccount(generatePrivateKey());
});

/** What `run` returned, and every JSON-RPC call the app sent the node meanwhile. */
async function recordedWhile<T>(run: () => Promise<T>): Promise<{ value: T; calls: RecordedCall[] }> {
  await settlementNode({ record: "start" });
  try {
    const value = await run();
    return { value, calls: (await settlementNode({ record: "stop" })).recorded };
  } finally {
    await settlementNode({ record: "stop" });
  }
}

const names = (call: RecordedCall, address: string) =>
  JSON.stringify(call.params ?? [])
    .toLowerCase()
    .includes(address.slice(2).toLowerCase());

/** The calls that can run `address`'s code: every eth_call or gas estimate naming it but the token reads. */
function mayRunCodeOf(calls: RecordedCall[], address: string): CallObject[] {
  return calls
    .filter(
      (call) => (call.method === "eth_call" || call.method === "eth_estimateGas") && names(call, address),
    )
    .map((call) => call.params?.[0] as CallObject)
    .filter((request) => {
      const data = String(request.data ?? request.input ?? "");
      return !(
        request.to?.toLowerCase() === chains.usdc.toLowerCase() &&
        TOKEN_READS.some((selector) => data.startsWith(selector))
      );
    });
}

/** Each call that can run the wallet's code names its gas, at most `cap`, and none is a gas estimate. */
function expectCapped(calls: RecordedCall[], wallet: string, cap: bigint) {
  expect(calls.filter((call) => call.method === "eth_estimateGas" && names(call, wallet))).toEqual([]);
  for (const request of mayRunCodeOf(calls, wallet)) {
    expect(request.gas, JSON.stringify(request).slice(0, 200)).toBeDefined();
    expect(BigInt(request.gas as string)).toBeLessThanOrEqual(cap);
  }
}

/** The slowest `eth_blockNumber` answer of the node, sent straight to it every 20 ms until `stop`. */
function watchNode() {
  let slowest = 0;
  let answers = 0;
  let watching = true;
  const loop = (async () => {
    while (watching) {
      const started = performance.now();
      await fetch(chains.baseRpc, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
      });
      slowest = Math.max(slowest, performance.now() - started);
      answers += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      watching = false;
      await loop;
      return { slowest, answers };
    },
  };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe("contract-wallet payers", () => {
  it("an honest contract wallet pays and is credited, with every call that runs its code under a gas limit", async () => {
    const wallet = await deployTestSmartWallet(chains.baseRpc, owner.address, NEVER_BURNS);
    await mintTestToken(chains.baseRpc, chains.usdc, wallet, 30n * USDC);
    const { apiKey } = await createAccount();
    const { header } = await signPayment(owner, 30n * USDC, { from: wallet });
    const { value: paid, calls } = await recordedWhile(() => payTopup(apiKey, 30, header));
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body).toMatchObject({ status: "completed", credited_usd: 30, payer: getAddress(wallet) });
    expect(await balanceOf(apiKey)).toBe(30);
    expect(await usdcBalance(wallet)).toBe(0n);
    expectCapped(calls, wallet, SETTLEMENT_GAS);
    const [payment] = paid.body.payments as { tx_hash: Hex }[];
    const receipt = await base.getTransactionReceipt({ hash: payment?.tx_hash as Hex });
    expect(receipt.gasUsed).toBeLessThanOrEqual(SETTLEMENT_GAS);
  });

  it("a wallet whose isValidSignature burns all its gas: refused fast, each attempt under the cap, the node unhindered", async () => {
    const attempts = 8;
    const burner = await deployTestSmartWallet(chains.baseRpc, owner.address, 0n);
    // It holds the money, so its signature is what gets checked.
    await mintTestToken(chains.baseRpc, chains.usdc, burner, 25n * USDC);
    const accounts = [await createAccount(), await createAccount()];
    const keyOf = (index: number) => (accounts[index % accounts.length] as (typeof accounts)[number]).apiKey;
    const headers = await Promise.all(
      Array.from(
        { length: attempts },
        async () => (await signPayment(owner, 25n * USDC, { from: burner })).header,
      ),
    );
    const bystander = await createAccount();
    const bystanderPayer = await fundedWallet(25n * USDC);
    const bystanderPayment = await signPayment(bystanderPayer, 25n * USDC);
    const relayerBefore = await relayerNonce();

    const node = watchNode();
    const { value, calls } = await recordedWhile(() =>
      Promise.all([
        Promise.all(headers.map((header, index) => timed(() => payTopup(keyOf(index), 25, header)))),
        timed(() => payTopup(bystander.apiKey, 25, bystanderPayment.header)),
      ]),
    );
    const { slowest, answers } = await node.stop();
    const [refused, paid] = value;

    for (const { value: result, ms } of refused) {
      expect(result.status).toBe(402);
      expect(errorCode(result)).toBe("invalid_payment_signature");
      expect(ms).toBeLessThan(5_000);
    }
    // Meanwhile the node answered everyone else: an ordinary payment went through, and eth_blockNumber
    // never waited long.
    expect(paid.value.status).toBe(201);
    expect(await balanceOf(bystander.apiKey)).toBe(25);
    expect(answers).toBeGreaterThan(0);
    expect(slowest).toBeLessThan(1_000);

    // Each attempt ran the wallet's code once, under the signature check's limit.
    const runs = mayRunCodeOf(calls, burner);
    const spent = await Promise.all(runs.map((request) => gasUsedByCall(chains.baseRpc, request)));
    const perAttempt = spent.reduce((sum, gas) => sum + gas, 0n) / BigInt(attempts);
    console.info(
      `gas-burning wallet: ${attempts} attempts, ${runs.length} calls running its code, node gas per ` +
        `attempt ${perAttempt}, slowest attempt ${Math.round(Math.max(...refused.map((r) => r.ms)))} ms, ` +
        `slowest eth_blockNumber ${Math.round(slowest)} ms over ${answers} answers`,
    );
    expect(runs).toHaveLength(attempts);
    for (const [index, request] of runs.entries()) {
      expect(BigInt(request.gas ?? "0")).toBe(SIGNATURE_CHECK_GAS);
      expect(spent[index]).toBeLessThanOrEqual(SIGNATURE_CHECK_GAS);
    }
    for (const account of accounts) expect(await balanceOf(account.apiKey)).toBe(0);
    expect(await usdcBalance(burner)).toBe(25n * USDC);
    expect(await relayerNonce()).toBe(relayerBefore + 1);
  });

  it("a wallet honest under a gas cap but burning above it pays, and no call gives it more than the cap", async () => {
    const wallet = await deployTestSmartWallet(chains.baseRpc, owner.address, 1_000_000n);
    await mintTestToken(chains.baseRpc, chains.usdc, wallet, 25n * USDC);
    const { apiKey } = await createAccount();
    const { header } = await signPayment(owner, 25n * USDC, { from: wallet });
    const { value: paid, calls } = await recordedWhile(() => payTopup(apiKey, 25, header));
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(await balanceOf(apiKey)).toBe(25);
    expectCapped(calls, wallet, SETTLEMENT_GAS);
    const [payment] = paid.body.payments as { tx_hash: Hex }[];
    const receipt = await base.getTransactionReceipt({ hash: payment?.tx_hash as Hex });
    expect(receipt.gasUsed).toBeLessThanOrEqual(SETTLEMENT_GAS);
  });

  it("a wallet without the USDC is refused before its code ever runs", async () => {
    const burner = await deployTestSmartWallet(chains.baseRpc, owner.address, 0n);
    const { apiKey } = await createAccount();
    const { header } = await signPayment(owner, 25n * USDC, { from: burner });
    const { value: refused, calls } = await recordedWhile(() => payTopup(apiKey, 25, header));
    expect(refused.status).toBe(402);
    expect(errorCode(refused)).toBe("insufficient_funds");
    expect(mayRunCodeOf(calls, burner)).toEqual([]);
  });

  it("an ERC-6492 signature of an undeployed wallet is refused, and its factory is never run", async () => {
    const undeployed = privateKeyToAccount(generatePrivateKey()).address;
    await mintTestToken(chains.baseRpc, chains.usdc, undeployed, 25n * USDC);
    const factory = getAddress(toHex(randomBytes(20)));
    const { message, signature } = await signPayment(owner, 25n * USDC, { from: undeployed });
    const wrapped = serializeErc6492Signature({ address: factory, data: "0xdeadbeef", signature });
    const { apiKey } = await createAccount();
    const { value: refused, calls } = await recordedWhile(() =>
      payTopup(apiKey, 25, paymentHeader(message, wrapped)),
    );
    expect(refused.status).toBe(402);
    expect(errorCode(refused)).toBe("payment_wallet_not_deployed");
    expect(calls.filter((call) => names(call, factory))).toEqual([]);
    expect(await usdcBalance(undeployed)).toBe(25n * USDC);
  });
});
