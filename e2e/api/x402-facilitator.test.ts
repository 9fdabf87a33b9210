/**
 * The facilitator option: an app with X402_FACILITATOR_URL (and no relayer key) delegates verify and settle
 * to a real x402 facilitator process (the official @x402/core facilitator with the @x402/evm exact scheme)
 * on the local Base chain. Our own checks still run first, and the credit still comes from the chain.
 */
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fundNativeBalance } from "@/lib/demo-chain/test-token";
import { type RunningApp, startApp } from "../support/app-server";
import { type RunningFacilitator, startFacilitator } from "../support/facilitator-process";
import { randomIp } from "./helpers";
import { base, fundedWallet, relayerNonce, signPaymentV2, usdcBalance } from "./x402-signing";

const chains = inject("chains");
const TOKEN = "facilitator-test-token";
let facilitator: RunningFacilitator;
let app: RunningApp;
const facilitatorKey = generatePrivateKey();

beforeAll(async () => {
  await fundNativeBalance(chains.baseRpc, privateKeyToAddress(facilitatorKey), 10n ** 19n);
  facilitator = await startFacilitator({ RPC_URL: chains.baseRpc, PRIVATE_KEY: facilitatorKey, TOKEN });
  const { X402_RELAYER_PRIVATE_KEY: _ours, ...env } = inject("appEnv");
  app = await startApp({
    ...env,
    X402_FACILITATOR_URL: facilitator.url,
    X402_FACILITATOR_HEADERS: JSON.stringify({ Authorization: `Bearer ${TOKEN}` }),
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await facilitator?.stop();
});

async function call(
  path: string,
  init: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${app.url}/api/v1${path}`, {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      "x-forwarded-for": randomIp(),
      "content-type": "application/json",
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

const newAccount = async () => (await call("/account", { body: {} })).body.api_key as string;
const balance = async (key: string) => (await call("/account", { key })).body.balance_usd as number;
const pay = (key: string, amount: number, headers: Record<string, string>) =>
  call("/topups", { key, body: { amount, coin: "USDCBASE" }, headers });

describe("settling through an x402 facilitator", () => {
  it("the official v2 client pays; the facilitator's account sends the transaction, not our relayer", async () => {
    const apiKey = await newAccount();
    const payer = await fundedWallet(27_000_000n);
    const statsBefore = await facilitator.stats();
    const relayerBefore = await relayerNonce();
    const payToBefore = await usdcBalance(chains.payTo);
    const client = new x402Client()
      .register("eip155:*", new ExactEvmScheme(payer))
      .setSpendControls({ maxAmountPerPayment: "$2000" });
    const response = await wrapFetchWithPayment(fetch, client)(`${app.url}/api/v1/topups`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "x-forwarded-for": randomIp(),
      },
      body: JSON.stringify({ amount: 27, coin: "USDCBASE" }),
    });
    expect(response.status).toBe(201);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    expect(settlement).toMatchObject({ success: true, network: "eip155:8453", payer: payer.address });
    const tx = await base.getTransaction({ hash: settlement.transaction as `0x${string}` });
    expect(tx.from.toLowerCase()).toBe(privateKeyToAddress(facilitatorKey).toLowerCase());
    const statsAfter = await facilitator.stats();
    expect(statsAfter.settle).toBe(statsBefore.settle + 1);
    expect(statsAfter.verify).toBe(statsBefore.verify + 1);
    expect(statsAfter.unauthorized).toBe(0);
    expect(await relayerNonce()).toBe(relayerBefore);
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + 27_000_000n);
    expect(await balance(apiKey)).toBe(27);
  });

  it("a replay is refused (other account) or answered again (same account), with no second settle", async () => {
    const owner = await newAccount();
    const thief = await newAccount();
    const payer = await fundedWallet(26_000_000n);
    const signed = await signPaymentV2(payer, 26_000_000n);
    const paid = await pay(owner, 26, { "x-payment": signed.v1Header });
    expect(paid.status).toBe(201);
    expect(paid.headers.get("x-payment-response")).toBeTruthy();
    const settles = (await facilitator.stats()).settle;
    const stolen = await pay(thief, 26, { "payment-signature": signed.header });
    expect(stolen.status).toBe(409);
    expect(stolen.body.error).toBe("payment_already_used");
    const again = await pay(owner, 26, { "payment-signature": signed.header });
    expect(again.status).toBe(200);
    expect(again.body.ref).toBe(paid.body.ref);
    expect((await facilitator.stats()).settle).toBe(settles);
    expect(await balance(owner)).toBe(26);
    expect(await balance(thief)).toBe(0);
  });

  it("our own checks run before the facilitator is asked: a wrong amount never reaches it", async () => {
    const apiKey = await newAccount();
    const payer = await fundedWallet(50_000_000n);
    const { header } = await signPaymentV2(payer, 50_000_000n, { value: 50_000_001n });
    const before = await facilitator.stats();
    const refused = await pay(apiKey, 50, { "payment-signature": header });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe("payment_amount_mismatch");
    expect(await facilitator.stats()).toEqual(before);
    expect(await balance(apiKey)).toBe(0);
  });
});
