/**
 * x402 measurements on the production build and local anvil chains:
 *  1. the 402 challenge (POST /topups, USDCBASE, no payment) in requests/s with autocannon, and the cost of its
 *     v2 PAYMENT-REQUIRED header measured in the same run (building and encoding it per request, in process);
 *  2. the time from a paid request (PAYMENT-SIGNATURE) to its 201 with each settlement path: our own relayer,
 *     and an x402 facilitator process (e2e/support/x402-facilitator.mjs).
 *
 *   npm run measure:x402                        # 10 s challenge load, 50 connections, 8 payments per path
 *   MEASURE_SECONDS=5 MEASURE_PAYMENTS=5 npm run measure:x402
 */

import { execSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { authorizationTypes } from "@x402/evm";
import autocannon from "autocannon";
import { toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { startApp } from "../e2e/support/app-server";
import { startFacilitator } from "../e2e/support/facilitator-process";
import { startTestChains } from "../e2e/support/test-chains";
import { fundNativeBalance, mintTestToken } from "../lib/demo-chain/test-token";
import { paymentRequiredV2, topupRequirement } from "../lib/rails/x402/requirements";

const seconds = Number(process.env.MEASURE_SECONDS ?? 10);
const connections = Number(process.env.MEASURE_CONNECTIONS ?? 50);
const payments = Number(process.env.MEASURE_PAYMENTS ?? 8);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function newAccount(url: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/account`, { method: "POST" });
  return ((await response.json()) as { api_key: string }).api_key;
}

async function challengeLoad(url: string, apiKey: string) {
  const result = await autocannon({
    url: `${url}/api/v1/topups`,
    method: "POST",
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ amount: 30, coin: "USDCBASE" }),
  });
  return { rps: result.requests.average, p99: result.latency.p99, codes: result.statusCodeStats };
}

/** The per-request work the v2 header adds to the challenge: build the object, JSON, base64. */
function headerCostMicros(): number {
  const requirement = topupRequirement(
    {
      network: "base",
      usdc: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", name: "USD Coin", version: "2" },
      maxTimeoutSeconds: 300,
    },
    "0x2BCCcf425AC35bc15d9A9466e4f3ce0941fC2738",
    3000,
    "https://vps.example/api/v1/topups",
  );
  const rounds = 50_000;
  let length = 0;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) {
    const required = paymentRequiredV2(requirement, 8453, "payment_required") as unknown as PaymentRequired;
    length += encodePaymentRequiredHeader(required).length;
  }
  if (length === 0) throw new Error("no header built");
  return ((performance.now() - started) * 1000) / rounds;
}

async function main() {
  if (!existsSync(".next/BUILD_ID")) execSync("npm run build", { stdio: "inherit" });
  const chains = await startTestChains();
  const facilitatorKey = generatePrivateKey();
  await fundNativeBalance(chains.base.rpcUrl, privateKeyToAddress(facilitatorKey), 10n ** 19n);
  const facilitator = await startFacilitator({
    RPC_URL: chains.base.rpcUrl,
    PRIVATE_KEY: facilitatorKey,
    TOKEN: "measure",
  });
  const limits = { RATE_LIMIT_X402_ATTEMPTS: "100000/1m", RATE_LIMIT_ACCOUNT_CREATE: "1000/1m" };
  const relayerApp = await startApp({ ...chains.appEnv, ...limits });
  const { X402_RELAYER_PRIVATE_KEY: _key, ...withoutRelayer } = chains.appEnv;
  const facilitatorApp = await startApp({
    ...withoutRelayer,
    ...limits,
    X402_FACILITATOR_URL: facilitator.url,
    X402_FACILITATOR_HEADERS: JSON.stringify({ Authorization: "Bearer measure" }),
  });
  try {
    const apiKey = await newAccount(relayerApp.url);
    await challengeLoad(relayerApp.url, apiKey); // warm-up
    const load = await challengeLoad(relayerApp.url, apiKey);
    const micros = headerCostMicros();
    const perRequestMicros = 1e6 / (load.rps / connections);
    console.log(`\n402 challenge, ${connections} connections, ${seconds} s, production build, PGlite`);
    console.log(
      `  POST /topups -> 402 (v1 body + PAYMENT-REQUIRED): ${load.rps.toFixed(0)} req/s, p99 ${load.p99} ms`,
    );
    console.log(`  status codes: ${JSON.stringify(load.codes)}`);
    console.log(
      `  v2 header: ${micros.toFixed(1)} us of CPU per 402, ${((micros / (1e6 / load.rps)) * 100).toFixed(1)}% of one ` +
        `request's share of the server (${(1e6 / load.rps).toFixed(0)} us); each request waits ${(perRequestMicros / 1000).toFixed(1)} ms`,
    );

    const payer = privateKeyToAccount(generatePrivateKey());
    await mintTestToken(chains.base.rpcUrl, chains.usdc, payer.address, 10n ** 12n);
    const pay = async (url: string, key: string) => {
      const now = BigInt(Math.floor(Date.now() / 1000));
      const message = {
        from: payer.address,
        to: chains.payTo,
        value: 25_000_000n,
        validAfter: now - 600n,
        validBefore: now + 240n,
        nonce: toHex(randomBytes(32)),
      };
      const signature = await payer.signTypedData({
        domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: chains.usdc },
        types: authorizationTypes,
        primaryType: "TransferWithAuthorization",
        message,
      });
      const header = Buffer.from(
        JSON.stringify({
          x402Version: 2,
          accepted: {
            scheme: "exact",
            network: "eip155:8453",
            amount: "25000000",
            asset: chains.usdc,
            payTo: chains.payTo,
            maxTimeoutSeconds: 300,
            extra: { name: "USD Coin", version: "2" },
          },
          payload: {
            signature,
            authorization: {
              ...message,
              value: message.value.toString(),
              validAfter: message.validAfter.toString(),
              validBefore: message.validBefore.toString(),
            },
          },
        }),
      ).toString("base64");
      const started = performance.now();
      const response = await fetch(`${url}/api/v1/topups`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "payment-signature": header,
        },
        body: JSON.stringify({ amount: 25, coin: "USDCBASE" }),
      });
      await response.text();
      if (response.status !== 201) throw new Error(`payment answered ${response.status}`);
      return performance.now() - started;
    };
    console.log(`\npaid request -> 201, ${payments} sequential v2 payments per path, anvil --block-time 1`);
    for (const [name, app] of [
      ["own relayer", relayerApp],
      ["facilitator", facilitatorApp],
    ] as const) {
      const key = await newAccount(app.url);
      await pay(app.url, key); // warm-up
      const times: number[] = [];
      for (let i = 0; i < payments; i++) times.push(await pay(app.url, key));
      console.log(
        `  ${name.padEnd(12)} median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms, ` +
          `max ${Math.max(...times).toFixed(0)} ms`,
      );
    }
  } finally {
    await Promise.all([relayerApp.stop(), facilitatorApp.stop()]);
    await facilitator.stop();
    await chains.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
