/**
 * x402 attempts are limited per account and per client address (RATE_LIMIT_X402_ATTEMPTS): each refused
 * X-PAYMENT costs the service chain reads, so past the limit an attempt answers 429 with Retry-After before
 * any of them, and nothing is charged or credited. Attempts that pay are not counted.
 */
import { describe, expect, inject, it } from "vitest";
import { TEST_LIMITS } from "./global-setup";
import { type ApiResult, createAccount, errorCode, randomIp } from "./helpers";
import {
  balanceOf,
  base,
  fundedWallet,
  payTopup,
  relayerNonce,
  signPayment,
  usdcBalance,
} from "./x402-signing";

const chains = inject("chains");
const LIMIT = TEST_LIMITS.x402Attempts;

/** How many JSON-RPC calls reached the settlement node so far. */
const nodeCalls = async () =>
  ((await (await fetch(chains.baseProxyControl, { method: "POST", body: "{}" })).json()) as { calls: number })
    .calls;

const authorizationUsed = (payer: `0x${string}`, nonce: `0x${string}`) =>
  base.readContract({
    address: chains.usdc,
    abi: [
      {
        type: "function",
        name: "authorizationState",
        stateMutability: "view",
        inputs: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
        outputs: [{ type: "bool" }],
      },
    ] as const,
    functionName: "authorizationState",
    args: [payer, nonce],
  });

function expectLimited(result: ApiResult) {
  expect(result.status).toBe(429);
  expect(errorCode(result)).toBe("rate_limited");
  const retryAfter = Number(result.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(600);
}

/** An authorization for 30 USD sent as a top-up of 25: refused with 402 before any chain call. */
async function refusedAttempt(key: string, ip: string) {
  const payer = await fundedWallet(0n);
  const { header } = await signPayment(payer, 30_000_000n);
  const result = await payTopup(key, 25, header, {}, ip);
  expect(result.status).toBe(402);
  expect(errorCode(result)).toBe("payment_amount_mismatch");
}

/** A valid payment past the limit: 429 before any chain call; no money moves, nothing is credited. */
async function expectPaymentRefused(key: string, ip: string) {
  const payer = await fundedWallet(25_000_000n);
  const { header, message } = await signPayment(payer, 25_000_000n);
  const [relayerBefore, callsBefore] = [await relayerNonce(), await nodeCalls()];
  expectLimited(await payTopup(key, 25, header, {}, ip));
  expect(await nodeCalls()).toBe(callsBefore);
  expect(await relayerNonce()).toBe(relayerBefore);
  expect(await usdcBalance(payer.address)).toBe(25_000_000n);
  expect(await authorizationUsed(payer.address, message.nonce)).toBe(false);
  return header;
}

describe("x402 attempt limits", () => {
  it("per account, whatever address the attempts come from; other accounts still pay", async () => {
    const { apiKey } = await createAccount();
    for (let i = 0; i < LIMIT; i++) await refusedAttempt(apiKey, randomIp());
    await expectPaymentRefused(apiKey, randomIp());
    expect(await balanceOf(apiKey)).toBe(0);

    const other = await createAccount();
    const payer = await fundedWallet(25_000_000n);
    const { header } = await signPayment(payer, 25_000_000n);
    expect((await payTopup(other.apiKey, 25, header)).status).toBe(201);
    expect(await balanceOf(other.apiKey)).toBe(25);
  });

  it("per client address, whatever account makes them; the same account elsewhere still pays", async () => {
    const ip = randomIp();
    const accounts = await Promise.all(Array.from({ length: LIMIT }, () => createAccount()));
    for (const account of accounts) await refusedAttempt(account.apiKey, ip);
    const last = await createAccount();
    const header = await expectPaymentRefused(last.apiKey, ip);
    expect(await balanceOf(last.apiKey)).toBe(0);
    // The same signed payment from another address goes through, once.
    const paid = await payTopup(last.apiKey, 25, header, {}, randomIp());
    expect(paid.status).toBe(201);
    expect(await balanceOf(last.apiKey)).toBe(25);
  });

  it("attempts that pay are not counted", async () => {
    const { apiKey } = await createAccount();
    for (let i = 0; i < LIMIT - 1; i++) await refusedAttempt(apiKey, randomIp());
    const payer = await fundedWallet(50_000_000n);
    for (let i = 0; i < 2; i++) {
      const { header } = await signPayment(payer, 25_000_000n);
      expect((await payTopup(apiKey, 25, header)).status).toBe(201);
    }
    expect(await balanceOf(apiKey)).toBe(50);
    await refusedAttempt(apiKey, randomIp());
    await expectPaymentRefused(apiKey, randomIp());
    expect(await balanceOf(apiKey)).toBe(50);
  });
});
