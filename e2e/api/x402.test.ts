import { randomBytes } from "node:crypto";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { getAddress, type PrivateKeyAccount, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { addOperator, operatorApi, signInOperator } from "../support/operator";
import { api, baseUrl, createAccount, errorCode, randomIp, type TestAccount, until } from "./helpers";
import {
  type AuthorizationOverrides,
  balanceOf,
  base,
  fundedWallet,
  payAfterClaims,
  payTopup,
  relayerNonce,
  settlementNode,
  signPayment,
  submitToToken,
  untilHeld,
  usdcBalance,
  v1PayingFetch,
} from "./x402-signing";

const chains = inject("chains");

describe("the x402 challenge", () => {
  it("USDCBASE answers 402 with the v1 requirements for exactly the amount", async () => {
    const { apiKey } = await createAccount();
    const result = await api("/topups", {
      method: "POST",
      key: apiKey,
      body: { amount: 42.5, coin: "USDCBASE" },
    });
    expect(result.status).toBe(402);
    expect(result.body).toMatchObject({ x402Version: 1, error: "payment_required" });
    const [requirement] = result.body.accepts as Record<string, unknown>[];
    expect(requirement).toEqual({
      scheme: "exact",
      network: "base",
      maxAmountRequired: "42500000",
      resource: `${baseUrl()}/topups`,
      description: expect.stringContaining("42.50"),
      mimeType: "application/json",
      payTo: chains.payTo,
      maxTimeoutSeconds: 300,
      asset: chains.usdc,
      extra: { name: "USD Coin", version: "2" },
    });
    expect((await api("/topups", { key: apiKey })).body.topups).toEqual([]);
  });

  it("X-Payment-Mode: x402 asks for USDC whatever the coin", async () => {
    const { apiKey } = await createAccount();
    const result = await api("/topups", {
      method: "POST",
      key: apiKey,
      body: { amount: 30, coin: "BTC" },
      headers: { "x-payment-mode": "x402" },
    });
    expect(result.status).toBe(402);
    expect((result.body.accepts as { maxAmountRequired: string }[])[0]?.maxAmountRequired).toBe("30000000");
  });

  it("still validates the amount first", async () => {
    const { apiKey } = await createAccount();
    const result = await api("/topups", {
      method: "POST",
      key: apiKey,
      body: { amount: 10, coin: "USDCBASE" },
    });
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe("amount_too_low");
  });
});

const setChain = (mode: "up" | "down") =>
  fetch(chains.baseProxyControl, { method: "POST", body: JSON.stringify({ mode }) });

/** How long a claim on an authorization lasts (lib/topups/x402.ts). */
const CLAIM_LEASE_SECONDS = 60;

describe("paid x402 top-ups on the local Base chain", () => {
  it("the official client @x402/fetch (v1) pays, and the balance is credited", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(100_000_000n);
    const payingFetch = v1PayingFetch(payer);
    const payToBefore = await usdcBalance(chains.payTo);
    const response = await payingFetch(`${baseUrl()}/topups`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "x-forwarded-for": randomIp(),
      },
      body: JSON.stringify({ amount: 55.25, coin: "USDCBASE" }),
    });
    expect(response.status).toBe(201);
    const topup = (await response.json()) as Record<string, unknown>;
    expect(topup).toMatchObject({
      status: "completed",
      amount_usd: 55.25,
      coin: "USDCBASE",
      deposit_coin: "USDC",
      deposit_network: "base",
      deposit_amount: "55.25",
      credited_usd: 55.25,
      payer: payer.address,
    });
    const settlement = decodePaymentResponseHeader(response.headers.get("x-payment-response") ?? "");
    expect(settlement).toMatchObject({ success: true, network: "base", payer: payer.address });
    const receipt = await base.getTransactionReceipt({ hash: settlement.transaction as `0x${string}` });
    expect(receipt.status).toBe("success");
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + 55_250_000n);
    expect(await usdcBalance(payer.address)).toBe(100_000_000n - 55_250_000n);
    expect(await balanceOf(apiKey)).toBe(55.25);
    const polled = await api(`/topups/${topup.ref}`, { key: apiKey });
    expect(polled.body).toMatchObject({ status: "completed", credited_usd: 55.25 });
  });

  it("a header signed by hand with viem pays too", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(25_000_000n);
    const { header } = await signPayment(payer, 25_000_000n);
    const result = await payTopup(apiKey, 25, header);
    expect(result.status).toBe(201);
    expect(result.headers.get("x-payment-response")).toBeTruthy();
    expect(await balanceOf(apiKey)).toBe(25);
  });

  it("the same header sent 20 times in parallel credits once and moves the money once", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(80_000_000n);
    const { header } = await signPayment(payer, 80_000_000n);
    const payToBefore = await usdcBalance(chains.payTo);
    const nonceBefore = await relayerNonce();
    const results = await Promise.all(Array.from({ length: 20 }, () => payTopup(apiKey, 80, header)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 200 || s === 409)).toBe(true);
    const refs = new Set(results.filter((r) => r.status < 300).map((r) => r.body.ref));
    expect(refs.size).toBe(1);
    for (const conflict of results.filter((r) => r.status === 409))
      expect(errorCode(conflict)).toBe("payment_in_progress");
    // Once settled, a replay by the same account returns the same top-up.
    const replay = await payTopup(apiKey, 80, header);
    expect(replay.status).toBe(200);
    expect(replay.body.ref).toBe([...refs][0]);
    expect(await balanceOf(apiKey)).toBe(80);
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + 80_000_000n);
    expect(await relayerNonce()).toBe(nonceBefore + 1);
    expect((await api("/topups", { key: apiKey })).body.topups).toHaveLength(1);
  });

  it("another account replaying a settled header gets 409 and no credit", async () => {
    const owner = await createAccount();
    const thief = await createAccount();
    const payer = await fundedWallet(30_000_000n);
    const { header } = await signPayment(payer, 30_000_000n);
    expect((await payTopup(owner.apiKey, 30, header)).status).toBe(201);
    const stolen = await payTopup(thief.apiKey, 30, header);
    expect(stolen.status).toBe(409);
    expect(errorCode(stolen)).toBe("payment_already_used");
    expect(await balanceOf(thief.apiKey)).toBe(0);
  });

  it("a settlement front-run after our claim is credited once, from the front-runner's transaction", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(40_000_000n);
    const { header, message, signature } = await signPayment(payer, 40_000_000n);
    const nonceBefore = await relayerNonce();
    let hash: `0x${string}` | undefined;
    const [result] = await payAfterClaims(
      [{ nonce: message.nonce, send: () => payTopup(apiKey, 40, header) }],
      async () => {
        hash = await submitToToken(message, signature);
      },
    );
    expect(result?.status).toBe(201);
    expect((result?.body.payments as { tx_hash: string }[] | undefined)?.[0]?.tx_hash).toBe(hash);
    expect(await relayerNonce()).toBe(nonceBefore);
    expect(await balanceOf(apiKey)).toBe(40);
    expect((await payTopup(apiKey, 40, header)).status).toBe(200);
    expect(await balanceOf(apiKey)).toBe(40);
  });

  it("an Idempotency-Key returns the settled top-up for a retried request", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(60_000_000n);
    const first = await signPayment(payer, 25_000_000n);
    const headers = { "idempotency-key": `x402-${Date.now()}` };
    const paid = await payTopup(apiKey, 25, first.header, headers);
    expect(paid.status).toBe(201);
    // A client that lost the answer signs again; the key returns the first outcome and nothing more moves.
    const second = await signPayment(payer, 25_000_000n);
    const retried = await payTopup(apiKey, 25, second.header, headers);
    expect(retried.status).toBe(201);
    expect(retried.body.ref).toBe(paid.body.ref);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await balanceOf(apiKey)).toBe(25);
    expect(await usdcBalance(payer.address)).toBe(35_000_000n);
  });
});

describe("settlements whose answer was lost", () => {
  type Lost = { owner: TestAccount; header: string; payer: PrivateKeyAccount };
  let lost: Lost[] = [];
  let nonceBefore: number;
  const env = () => ({ ...inject("appEnv"), DATA_DIR: inject("appDataDir") });

  /** Pays with the transaction reaching the node while its answer is lost and the node stops answering us. */
  async function loseSettlement(owner: TestAccount, header: string) {
    await settlementNode({ hold: { method: "eth_sendRawTransaction" } });
    try {
      const paying = payTopup(owner.apiKey, 45, header);
      await untilHeld(1);
      await setChain("down");
      await settlementNode({ release: { lose: true } });
      return await paying;
    } finally {
      await settlementNode({ release: {} });
      await setChain("up");
    }
  }

  // Two payments lost so (each 503), one after the other (the relayer sends one transaction at a time): one
  // for its owner's retry, one settled by the operator meanwhile. One wait for both claims' leases to lapse.
  beforeAll(
    async () => {
      const owners = [await createAccount(), await createAccount()];
      const payers = [await fundedWallet(45_000_000n), await fundedWallet(45_000_000n)];
      const headers = await Promise.all(
        payers.map(async (payer) => (await signPayment(payer, 45_000_000n)).header),
      );
      nonceBefore = await relayerNonce();
      for (const [i, owner] of owners.entries()) {
        expect((await loseSettlement(owner, headers[i] ?? "")).status).toBe(503);
      }
      for (const payer of payers) {
        await until(
          () => usdcBalance(payer.address),
          (left) => left === 0n,
          10_000,
        );
      }
      expect(await relayerNonce()).toBe(nonceBefore + 2);
      lost = owners.map((owner, i) => ({
        owner,
        header: headers[i] ?? "",
        payer: payers[i] as PrivateKeyAccount,
      }));
      // While the claims' leases run, nobody settles or credits them.
      const other = await createAccount();
      for (const account of [owners[0] as TestAccount, other]) {
        const early = await payTopup(account.apiKey, 45, headers[0] ?? "");
        expect(early.status).toBe(409);
        expect(errorCode(early)).toBe("payment_in_progress");
      }
      for (const owner of owners) expect(await balanceOf(owner.apiKey)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, CLAIM_LEASE_SECONDS * 1000 + 1000));
    },
    (CLAIM_LEASE_SECONDS + 90) * 1000,
  );

  it("one is credited to its owner's retry once the claim's lease lapses, and to nobody else", async () => {
    const [{ owner, header }] = lost as [Lost];
    const other = await createAccount();
    const stranger = await payTopup(other.apiKey, 45, header);
    expect(stranger.status).toBe(409);
    const retried = await payTopup(owner.apiKey, 45, header);
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ status: "completed", credited_usd: 45 });
    expect(await balanceOf(owner.apiKey)).toBe(45);
    expect(await balanceOf(other.apiKey)).toBe(0);
    expect(await relayerNonce()).toBe(nonceBefore + 2);
  });

  it("one settled by an operator's adjustment is closed on its rail: the retry credits nothing, a second adjustment is refused", async () => {
    const { owner, header } = lost[1] as Lost;
    const admin = await addOperator(env(), "x402-admin", "admin");
    const session = await signInOperator(inject("baseUrl"), admin);
    const operator = (route: string, call: Parameters<typeof operatorApi>[3] = {}) =>
      operatorApi(inject("baseUrl"), session, route, call);
    // The operator finds it under "needs attention" and, the chain showing the transfer, credits it.
    const flagged = (await operator("/payments")).body.payments as {
      id: string;
      flags: string[];
      account_id: number;
    }[];
    const payment = flagged.find((p) => p.account_id === owner.userId);
    expect(payment?.flags).toEqual(["settlement_unknown"]);
    const adjust = (key: string) =>
      operator(`/accounts/${owner.userId}/adjustments`, {
        method: "POST",
        body: {
          amount_usd: 45,
          reason: "x402 transfer landed on chain, checked by hand",
          payment: payment?.id,
        },
        headers: { "idempotency-key": key },
      });
    const adjusted = await adjust("x402-lost-1");
    expect(adjusted.status).toBe(201);
    expect(await balanceOf(owner.apiKey)).toBe(45);

    // The customer retries as the 503 told them to: the same payment is not credited again.
    const retried = await payTopup(owner.apiKey, 45, header);
    expect(retried.status).toBe(409);
    expect(errorCode(retried)).toBe("payment_settled_by_operator");
    expect(await balanceOf(owner.apiKey)).toBe(45);
    expect((await api("/topups", { key: owner.apiKey })).body.topups).toEqual([]);
    // Nor for anyone else.
    const other = await createAccount();
    expect(errorCode(await payTopup(other.apiKey, 45, header))).toBe("payment_already_used");

    // One adjustment settles a payment: a second one for it (another key, another admin's slip) is refused.
    const again = await adjust("x402-lost-2");
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("payment_already_settled");
    expect(await balanceOf(owner.apiKey)).toBe(45);
    // It stays listed as reviewed, settled by the adjustment.
    const reviewed = (await operator("/payments?state=reviewed")).body.payments as { id: string }[];
    expect(reviewed.map((p) => p.id)).toContain(payment?.id);
    expect(await relayerNonce()).toBe(nonceBefore + 2);
  });
});

describe("invalid x402 payments: a clear 4xx and no chain transaction", () => {
  let payer: PrivateKeyAccount;
  beforeAll(async () => {
    payer = await fundedWallet(500_000_000n);
  });
  const now = () => BigInt(Math.floor(Date.now() / 1000));

  const cases: [string, string, () => AuthorizationOverrides][] = [
    ["wrong amount (more)", "payment_amount_mismatch", () => ({ value: 50_000_001n })],
    ["wrong amount (less)", "payment_amount_mismatch", () => ({ value: 49_999_999n })],
    ["wrong payee", "payment_recipient_mismatch", () => ({ to: getAddress(toHex(randomBytes(20))) })],
    ["expired", "payment_expired", () => ({ validBefore: now() + 3n })],
    ["not yet valid", "payment_not_yet_valid", () => ({ validAfter: now() + 600n })],
    ["valid for too long", "payment_validity_too_long", () => ({ validBefore: now() + 7200n })],
    [
      "signed by someone else",
      "invalid_payment_signature",
      () => ({ signer: privateKeyToAccount(generatePrivateKey()) }),
    ],
  ];

  it.each(cases)("%s -> 402 %s", async (_name, code, overrides) => {
    const { apiKey } = await createAccount();
    const { header } = await signPayment(payer, 50_000_000n, overrides());
    const nonceBefore = await relayerNonce();
    const result = await payTopup(apiKey, 50, header);
    expect(result.status).toBe(402);
    expect(errorCode(result)).toBe(code);
    expect(result.body.x402Version).toBe(1);
    expect(result.body.accepts).toHaveLength(1);
    expect(await relayerNonce()).toBe(nonceBefore);
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it("a wallet without the USDC -> 402 insufficient_funds", async () => {
    const { apiKey } = await createAccount();
    const poor = await fundedWallet(1_000_000n);
    const { header } = await signPayment(poor, 50_000_000n);
    const nonceBefore = await relayerNonce();
    const result = await payTopup(apiKey, 50, header);
    expect(result.status).toBe(402);
    expect(errorCode(result)).toBe("insufficient_funds");
    expect(await relayerNonce()).toBe(nonceBefore);
  });

  it.each([
    ["not base64", "%%%not-base64%%%"],
    ["not JSON", Buffer.from("hello").toString("base64")],
    ["empty object", Buffer.from("{}").toString("base64")],
    ["v2 payload", Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString("base64")],
  ])("garbage header (%s) -> 400 invalid_payment", async (_name, header) => {
    const { apiKey } = await createAccount();
    const result = await payTopup(apiKey, 50, header);
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe("invalid_payment");
    expect(await balanceOf(apiKey)).toBe(0);
  });
});

describe("authorizations used on chain outside this service", () => {
  it("one submitted straight to the token credits nobody who presents it afterwards, its payer included", async () => {
    const payer = await fundedWallet(25_000_000n);
    const { header, message, signature } = await signPayment(payer, 25_000_000n);
    const payToBefore = await usdcBalance(chains.payTo);
    await submitToToken(message, signature);
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + 25_000_000n);
    const nonceBefore = await relayerNonce();
    for (const account of [await createAccount(), await createAccount()]) {
      const claimed = await payTopup(account.apiKey, 25, header);
      expect(claimed.status).toBe(409);
      expect(errorCode(claimed)).toBe("payment_settled_elsewhere");
      expect(await balanceOf(account.apiKey)).toBe(0);
      expect((await api("/topups", { key: account.apiKey })).body.topups).toEqual([]);
    }
    expect(await relayerNonce()).toBe(nonceBefore);
  });
});

describe("chain outages", () => {
  it("an RPC failure answers 503 and credits nothing; the same header then works", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(35_000_000n);
    const { header } = await signPayment(payer, 35_000_000n);
    const nonceBefore = await relayerNonce();
    await setChain("down");
    try {
      const failed = await payTopup(apiKey, 35, header);
      expect(failed.status).toBe(503);
      expect(errorCode(failed)).toBe("payment_network_unavailable");
      expect(failed.headers.get("retry-after")).toBeTruthy();
    } finally {
      await setChain("up");
    }
    expect(await balanceOf(apiKey)).toBe(0);
    expect(await relayerNonce()).toBe(nonceBefore);
    const retried = await payTopup(apiKey, 35, header);
    expect(retried.status).toBe(201);
    expect(await balanceOf(apiKey)).toBe(35);
  });
});
