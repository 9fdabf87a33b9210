/**
 * x402 v2 beside v1 on the same route: one 402 carries the v1 body and the v2 PAYMENT-REQUIRED header; a
 * v2 payment comes as PAYMENT-SIGNATURE with `accepted` and is answered with PAYMENT-RESPONSE. One
 * authorization is one payment whichever header carried it. Every refusal of the v1 suite has its twin here.
 */
import { randomBytes } from "node:crypto";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme, registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { getAddress, type PrivateKeyAccount, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { api, baseUrl, createAccount, errorCode, randomIp } from "./helpers";
import {
  type AuthorizationOverrides,
  balanceOf,
  base,
  fundedWallet,
  offeredV2,
  payAfterClaims,
  payTopup,
  payTopupV2,
  relayerNonce,
  signPaymentV2,
  submitToToken,
  usdcBalance,
} from "./x402-signing";

const chains = inject("chains");

const paidFetch = (client: x402Client, apiKey: string, amount: number) =>
  wrapFetchWithPayment(fetch, client)(`${baseUrl()}/topups`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      "x-forwarded-for": randomIp(),
    },
    body: JSON.stringify({ amount, coin: "USDCBASE" }),
  });

describe("the challenge speaks both versions", () => {
  it("one 402: the v1 body and the v2 PAYMENT-REQUIRED header for the same offer", async () => {
    const { apiKey } = await createAccount();
    const result = await api("/topups", {
      method: "POST",
      key: apiKey,
      body: { amount: 42.5, coin: "USDCBASE" },
    });
    expect(result.status).toBe(402);
    expect(result.body).toMatchObject({ x402Version: 1, error: "payment_required" });
    const header = result.headers.get("payment-required");
    expect(header).toBeTruthy();
    const required = decodePaymentRequiredHeader(header ?? "");
    expect(required).toEqual({
      x402Version: 2,
      error: "payment_required",
      resource: {
        url: `${baseUrl()}/topups`,
        description: expect.stringContaining("42.50"),
        mimeType: "application/json",
      },
      accepts: [offeredV2(42_500_000n)],
    });
    const exposed = result.headers.get("access-control-expose-headers") ?? "";
    for (const name of ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE"])
      expect(exposed).toContain(name);
    expect((await api("/topups", { key: apiKey })).body.topups).toEqual([]);
  });
});

describe("v2 payments on the local Base chain", () => {
  it("the official client in its v2-only configuration pays; PAYMENT-RESPONSE answers", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(70_000_000n);
    const client = new x402Client()
      .register("eip155:*", new ExactEvmScheme(payer))
      .setSpendControls({ maxAmountPerPayment: "$2000" });
    const payToBefore = await usdcBalance(chains.payTo);
    const response = await paidFetch(client, apiKey, 61.5);
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      status: "completed",
      amount_usd: 61.5,
      credited_usd: 61.5,
      payer: payer.address,
    });
    expect(response.headers.get("x-payment-response")).toBeNull();
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    expect(settlement).toMatchObject({ success: true, network: "eip155:8453", payer: payer.address });
    const receipt = await base.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.status).toBe("success");
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + 61_500_000n);
    expect(await balanceOf(apiKey)).toBe(61.5);
  });

  it("the official client with both versions registered pays, and chooses v2", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(33_000_000n);
    const client = registerExactEvmScheme(
      new x402Client().setSpendControls({ maxAmountPerPayment: "$2000" }),
      {
        signer: payer,
      },
    );
    const response = await paidFetch(client, apiKey, 33);
    expect(response.status).toBe(201);
    expect(response.headers.get("payment-response")).toBeTruthy();
    expect(response.headers.get("x-payment-response")).toBeNull();
    expect(await balanceOf(apiKey)).toBe(33);
  });

  it("one authorization sent as v2 and then as v1 credits once and moves the money once", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(45_000_000n);
    const signed = await signPaymentV2(payer, 45_000_000n);
    const nonceBefore = await relayerNonce();
    const paid = await payTopupV2(apiKey, 45, signed.header);
    expect(paid.status).toBe(201);
    const asV1 = await payTopup(apiKey, 45, signed.v1Header);
    expect(asV1.status).toBe(200);
    expect(asV1.body.ref).toBe(paid.body.ref);
    expect(asV1.headers.get("x-payment-response")).toBeTruthy();
    const again = await payTopupV2(apiKey, 45, signed.header);
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-response")).toBeTruthy();
    expect(await balanceOf(apiKey)).toBe(45);
    expect(await relayerNonce()).toBe(nonceBefore + 1);
    expect((await api("/topups", { key: apiKey })).body.topups).toHaveLength(1);
  });

  it("the same authorization as v1 and v2, 10 each in parallel, credits once", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(26_000_000n);
    const signed = await signPaymentV2(payer, 26_000_000n);
    const payToBefore = await usdcBalance(chains.payTo);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 ? payTopupV2(apiKey, 26, signed.header) : payTopup(apiKey, 26, signed.v1Header),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 200 || s === 409)).toBe(true);
    expect(await balanceOf(apiKey)).toBe(26);
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + 26_000_000n);
  });

  it("another account replaying a v1-settled authorization as v2 gets 409 and no credit", async () => {
    const owner = await createAccount();
    const thief = await createAccount();
    const payer = await fundedWallet(30_000_000n);
    const signed = await signPaymentV2(payer, 30_000_000n);
    expect((await payTopup(owner.apiKey, 30, signed.v1Header)).status).toBe(201);
    const stolen = await payTopupV2(thief.apiKey, 30, signed.header);
    expect(stolen.status).toBe(409);
    expect(errorCode(stolen)).toBe("payment_already_used");
    expect(await balanceOf(thief.apiKey)).toBe(0);
  });

  it("a v2 settlement front-run after our claim is credited once, from the front-runner's transaction", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(40_000_000n);
    const { header, message, signature } = await signPaymentV2(payer, 40_000_000n);
    const nonceBefore = await relayerNonce();
    let hash: `0x${string}` | undefined;
    const [result] = await payAfterClaims(
      [{ nonce: message.nonce, send: () => payTopupV2(apiKey, 40, header) }],
      async () => {
        hash = await submitToToken(message, signature);
      },
    );
    expect(result?.status).toBe(201);
    expect((result?.body.payments as { tx_hash: string }[] | undefined)?.[0]?.tx_hash).toBe(hash);
    expect(await relayerNonce()).toBe(nonceBefore);
    expect(await balanceOf(apiKey)).toBe(40);
  });

  it("a v2 authorization submitted straight to the token credits nobody who presents it afterwards", async () => {
    const payer = await fundedWallet(25_000_000n);
    const { header, message, signature } = await signPaymentV2(payer, 25_000_000n);
    await submitToToken(message, signature);
    const { apiKey } = await createAccount();
    const claimed = await payTopupV2(apiKey, 25, header);
    expect(claimed.status).toBe(409);
    expect(errorCode(claimed)).toBe("payment_settled_elsewhere");
    expect(await balanceOf(apiKey)).toBe(0);
    expect((await api("/topups", { key: apiKey })).body.topups).toEqual([]);
  });

  it("an Idempotency-Key returns the settled top-up for a retried v2 request", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(60_000_000n);
    const headers = { "idempotency-key": `x402v2-${Date.now()}` };
    const paid = await payTopupV2(apiKey, 25, (await signPaymentV2(payer, 25_000_000n)).header, headers);
    expect(paid.status).toBe(201);
    const retried = await payTopupV2(apiKey, 25, (await signPaymentV2(payer, 25_000_000n)).header, headers);
    expect(retried.status).toBe(201);
    expect(retried.body.ref).toBe(paid.body.ref);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await balanceOf(apiKey)).toBe(25);
    expect(await usdcBalance(payer.address)).toBe(35_000_000n);
  });
});

describe("invalid v2 payments: a clear 4xx and no chain transaction", () => {
  let payer: PrivateKeyAccount;
  beforeAll(async () => {
    payer = await fundedWallet(500_000_000n);
  });
  const now = () => BigInt(Math.floor(Date.now() / 1000));
  const randomAddress = () => getAddress(toHex(randomBytes(20)));

  type Case = [string, string, () => AuthorizationOverrides, () => Record<string, unknown>];
  const cases: Case[] = [
    // The authorization differs from the offer (with `accepted` as offered): the v1 refusals.
    ["wrong amount (more)", "payment_amount_mismatch", () => ({ value: 50_000_001n }), () => ({})],
    ["wrong amount (less)", "payment_amount_mismatch", () => ({ value: 49_999_999n }), () => ({})],
    ["wrong payee", "payment_recipient_mismatch", () => ({ to: randomAddress() }), () => ({})],
    ["expired", "payment_expired", () => ({ validBefore: now() + 3n }), () => ({})],
    ["not yet valid", "payment_not_yet_valid", () => ({ validAfter: now() + 600n }), () => ({})],
    ["valid for too long", "payment_validity_too_long", () => ({ validBefore: now() + 7200n }), () => ({})],
    [
      "signed by someone else",
      "invalid_payment_signature",
      () => ({ signer: privateKeyToAccount(generatePrivateKey()) }),
      () => ({}),
    ],
    // `accepted` is not what we offered, whatever the authorization says.
    [
      "accepted: more than asked",
      "payment_amount_mismatch",
      () => ({ value: 50_000_001n }),
      () => ({ amount: "50000001" }),
    ],
    [
      "accepted: another network",
      "payment_network_mismatch",
      () => ({}),
      () => ({ network: "eip155:84532" }),
    ],
    ["accepted: v1 network name", "payment_network_mismatch", () => ({}), () => ({ network: "base" })],
    ["accepted: another payee", "payment_recipient_mismatch", () => ({}), () => ({ payTo: randomAddress() })],
    ["accepted: another scheme", "payment_scheme_mismatch", () => ({}), () => ({ scheme: "upto" })],
    [
      "accepted: another asset",
      "payment_requirements_mismatch",
      () => ({}),
      () => ({ asset: randomAddress() }),
    ],
    [
      "accepted: another EIP-712 domain",
      "payment_requirements_mismatch",
      () => ({}),
      () => ({ extra: { name: "USDC", version: "2" } }),
    ],
    [
      "accepted: another timeout",
      "payment_requirements_mismatch",
      () => ({}),
      () => ({ maxTimeoutSeconds: 3600 }),
    ],
  ];

  it.each(cases)("%s -> 402 %s", async (_name, code, overrides, accepted) => {
    const { apiKey } = await createAccount();
    const { header } = await signPaymentV2(payer, 50_000_000n, overrides(), accepted());
    const nonceBefore = await relayerNonce();
    const result = await payTopupV2(apiKey, 50, header);
    expect(result.status).toBe(402);
    expect(errorCode(result)).toBe(code);
    expect(result.body.accepts).toHaveLength(1);
    const required = decodePaymentRequiredHeader(result.headers.get("payment-required") ?? "");
    expect(required).toMatchObject({ x402Version: 2, error: code, accepts: [offeredV2(50_000_000n)] });
    expect(await relayerNonce()).toBe(nonceBefore);
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it("a wallet without the USDC -> 402 insufficient_funds", async () => {
    const { apiKey } = await createAccount();
    const poor = await fundedWallet(1_000_000n);
    const { header } = await signPaymentV2(poor, 50_000_000n);
    const nonceBefore = await relayerNonce();
    const result = await payTopupV2(apiKey, 50, header);
    expect(result.status).toBe(402);
    expect(errorCode(result)).toBe("insufficient_funds");
    expect(await relayerNonce()).toBe(nonceBefore);
  });

  it.each([
    ["not base64", "%%%not-base64%%%"],
    ["not JSON", Buffer.from("hello").toString("base64")],
    ["empty object", Buffer.from("{}").toString("base64")],
    ["v2 without accepted", Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString("base64")],
  ])("garbage PAYMENT-SIGNATURE (%s) -> 400 invalid_payment", async (_name, header) => {
    const { apiKey } = await createAccount();
    const result = await payTopupV2(apiKey, 50, header);
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe("invalid_payment");
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it("a v1 payload in PAYMENT-SIGNATURE, or both headers at once -> 400 invalid_payment", async () => {
    const { apiKey } = await createAccount();
    const signed = await signPaymentV2(payer, 50_000_000n);
    const v1InV2 = await payTopupV2(apiKey, 50, signed.v1Header);
    expect(v1InV2.status).toBe(400);
    expect(errorCode(v1InV2)).toBe("invalid_payment");
    const both = await payTopupV2(apiKey, 50, signed.header, { "x-payment": signed.v1Header });
    expect(both.status).toBe(400);
    expect(errorCode(both)).toBe("invalid_payment");
    expect(await balanceOf(apiKey)).toBe(0);
  });
});

describe("chain outages (v2)", () => {
  const setChain = (mode: "up" | "down") =>
    fetch(chains.baseProxyControl, { method: "POST", body: JSON.stringify({ mode }) });

  it("an RPC failure answers 503 and credits nothing; the same PAYMENT-SIGNATURE then works", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(35_000_000n);
    const { header } = await signPaymentV2(payer, 35_000_000n);
    await setChain("down");
    try {
      const failed = await payTopupV2(apiKey, 35, header);
      expect(failed.status).toBe(503);
      expect(errorCode(failed)).toBe("payment_network_unavailable");
    } finally {
      await setChain("up");
    }
    expect(await balanceOf(apiKey)).toBe(0);
    const retried = await payTopupV2(apiKey, 35, header);
    expect(retried.status).toBe(201);
    expect(await balanceOf(apiKey)).toBe(35);
  });
});
