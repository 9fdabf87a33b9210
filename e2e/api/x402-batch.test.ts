/**
 * Several x402 authorizations used in one transaction (a contract calling `transferWithAuthorization` again
 * and again) after the API claimed them: each top-up is credited exactly what its own authorization moved,
 * whatever the order of the transfers in the transaction and the order the top-ups are credited in.
 */
import type { PrivateKeyAccount } from "viem";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { type AuthorizationBatch, deployAuthorizationBatch } from "../support/authorization-batch";
import { type ApiResult, api, createAccount, errorCode, type TestAccount } from "./helpers";
import { balanceOf, fundedWallet, payAfterClaims, payTopup, signPayment, usdcBalance } from "./x402-signing";

const chains = inject("chains");
const USDC = 1_000_000n;

let batch: AuthorizationBatch;
let payer: PrivateKeyAccount;

beforeAll(async () => {
  batch = await deployAuthorizationBatch(chains.baseRpc, chains.usdc);
  payer = await fundedWallet(5_000n * USDC);
});

/**
 * Signs one authorization per amount (in base units) and pays top-ups with them, `payments` saying which
 * authorization each top-up is paid with and by which account. Once the API has claimed them all, someone
 * submits every authorization, in signing order, in one transaction (front-running our settlements); each
 * top-up is then credited from the chain in the order of `payments`.
 */
async function batchedAfterClaims(
  units: bigint[],
  payments: { index: number; account: TestAccount; usd: number }[],
) {
  const signed = await Promise.all(units.map((value) => signPayment(payer, value)));
  const payToBefore = await usdcBalance(chains.payTo);
  let hash = "";
  const results = await payAfterClaims(
    payments.map(({ index, account, usd }) => {
      const { header, message } = signed[index] as (typeof signed)[number];
      return { nonce: message.nonce, send: () => payTopup(account.apiKey, usd, header) };
    }),
    async () => {
      hash = (await batch.submit(signed)).hash;
    },
  );
  const total = units.reduce((sum, value) => sum + value, 0n);
  expect(await usdcBalance(chains.payTo)).toBe(payToBefore + total);
  return { hash, results, headers: signed.map((s) => s.header) };
}

type Payment = { tx_hash: string; amount: string };

function expectCredited(result: ApiResult, usd: number, hash: string) {
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  expect(result.body).toMatchObject({ status: "completed", amount_usd: usd, credited_usd: usd });
  const payments = result.body.payments as Payment[];
  expect(payments).toHaveLength(1);
  expect(payments[0]?.tx_hash).toBe(hash);
  expect(Number(payments[0]?.amount)).toBe(usd);
}

/** Everything an account's top-ups say was credited, and its balance: they must agree. */
async function creditedTo(account: TestAccount) {
  const listed = (await api("/topups", { key: account.apiKey })).body.topups as { credited_usd: number }[];
  const balance = await balanceOf(account.apiKey);
  expect(listed.reduce((sum, topup) => sum + topup.credited_usd, 0)).toBe(balance);
  return balance;
}

describe("x402 authorizations batched in one transaction", () => {
  it("two of 25 USD: each credits 25 (the second is not answered 500), credited in either order", async () => {
    for (const creditOrder of [
      [0, 1],
      [1, 0],
    ]) {
      const account = await createAccount();
      const { hash, results, headers } = await batchedAfterClaims(
        [25n * USDC, 25n * USDC],
        creditOrder.map((index) => ({ index, account, usd: 25 })),
      );
      for (const result of results) expectCredited(result, 25, hash);
      expect(await creditedTo(account)).toBe(50);
      // Re-sending either answers its own top-up again and credits nothing more.
      for (const header of headers) expect((await payTopup(account.apiKey, 25, header)).status).toBe(200);
      expect(await creditedTo(account)).toBe(50);
    }
  });

  it.each([
    ["100 then 25, credited 25 first", [100, 25], [1, 0]],
    ["100 then 25, credited 100 first", [100, 25], [0, 1]],
    ["25 then 100, credited 25 first", [25, 100], [0, 1]],
    ["25 then 100, credited 100 first", [25, 100], [1, 0]],
  ])("%s: each top-up is credited what it authorized", async (_name, amounts, creditOrder) => {
    const account = await createAccount();
    const usdOf = (index: number) => amounts[index] ?? 0;
    const { hash, results } = await batchedAfterClaims(
      amounts.map((usd) => BigInt(usd) * USDC),
      creditOrder.map((index) => ({ index, account, usd: usdOf(index) })),
    );
    for (const [position, index] of creditOrder.entries()) {
      expectCredited(results[position] as ApiResult, usdOf(index), hash);
    }
    expect(await creditedTo(account)).toBe(125);
  });

  it("three in one (under a cent, 25, 30), in both orders and claimed by two accounts: exact credits, the sub-cent one refused", async () => {
    for (const order of ["forward", "reverse"] as const) {
      const units = [1n, 25n * USDC, 30n * USDC];
      if (order === "reverse") units.reverse();
      const first = await createAccount();
      const second = await createAccount();
      // The sub-cent transfer sits before (or after) the others: it must not be credited to them.
      const { hash, results, headers } = await batchedAfterClaims(units, [
        { index: units.indexOf(25n * USDC), account: first, usd: 25 },
        { index: units.indexOf(30n * USDC), account: second, usd: 30 },
      ]);
      expectCredited(results[0] as ApiResult, 25, hash);
      expectCredited(results[1] as ApiResult, 30, hash);
      const headerOf = (value: bigint) => headers[units.indexOf(value)] ?? "";
      // An authorization under one cent credits nothing: a clear refusal, not an error of ours.
      for (const amount of [25, 30]) {
        const refused = await payTopup(first.apiKey, amount, headerOf(1n));
        expect(refused.status).toBe(402);
        expect(errorCode(refused)).toBe("payment_amount_mismatch");
      }
      const tooSmall = await payTopup(first.apiKey, 0.01, headerOf(1n));
      expect(tooSmall.status).toBe(400);
      expect(errorCode(tooSmall)).toBe("amount_too_low");
      // Claiming another account's transfer again is refused.
      const stolen = await payTopup(first.apiKey, 30, headerOf(30n * USDC));
      expect(stolen.status).toBe(409);
      expect(errorCode(stolen)).toBe("payment_already_used");
      expect(await creditedTo(first)).toBe(25);
      expect(await creditedTo(second)).toBe(30);
    }
  });
});
