/**
 * A renewal paid with x402 when the balance is short, on the local Base chain: the 402 offers the renewal's
 * price (v1 body and v2 header), the official clients pay it, it is settled at once and credited then charged
 * (the balance stays), one payment renews once, and a payment is not taken when the balance covers the renewal.
 */
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { describe, expect, inject, it } from "vitest";
import { addMonths } from "@/lib/servers/cycle";
import { fund } from "./funding";
import { api, baseUrl, createAccount, errorCode, randomIp, waitForServer } from "./helpers";
import {
  balanceOf,
  fundedWallet,
  relayerNonce,
  signPayment,
  usdcBalance,
  v1PayingFetch,
} from "./x402-signing";

const chains = inject("chains");
/** Dingo in Amsterdam: 21 USD a month, against a 25 USD top-up, so a renewal is 17 USD short. */
const PRICE_UNITS = 21_000_000n;

type Server = { id: number; status: string; expires_at: string };

/** An account holding an active Dingo with 4 USD left on the balance. */
async function serverShortOfRenewal() {
  const { apiKey } = await createAccount();
  await fund(apiKey, 25);
  const ordered = await api("/servers", {
    method: "POST",
    key: apiKey,
    body: { plan: "dingo", location: "nl", os: "debian-13" },
  });
  expect(ordered.status).toBe(201);
  const server = await waitForServer<Server>(apiKey, ordered.body.id as number, (s) => s.status === "active");
  expect(await balanceOf(apiKey)).toBe(4);
  return { apiKey, server };
}

const renewUrl = (id: number) => `${baseUrl()}/servers/${id}/renew`;
const renew = (key: string, id: number, headers: Record<string, string> = {}) =>
  api(`/servers/${id}/renew`, { method: "POST", key, headers });
const oneMonthLater = (iso: string) => addMonths(new Date(iso), 1).getTime();
const usdcTopups = async (key: string) =>
  (
    (await api("/topups", { key })).body.topups as { coin: string; status: string; credited_usd: number }[]
  ).filter((topup) => topup.coin === "USDCBASE");

describe("a renewal the balance does not cover, paid with x402", () => {
  it("402 offers exactly the renewal's price, in the v1 body and the v2 header, and changes nothing", async () => {
    const { apiKey, server } = await serverShortOfRenewal();
    const refused = await renew(apiKey, server.id);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      error: "insufficient_balance",
      price: 21,
      balance: 4,
      deficit: 17,
      x402Version: 1,
      accepts: [
        {
          scheme: "exact",
          network: "base",
          maxAmountRequired: PRICE_UNITS.toString(),
          resource: renewUrl(server.id),
          payTo: chains.payTo,
          asset: chains.usdc,
        },
      ],
    });
    expect(refused.body.message).toContain("x402");
    const required = decodePaymentRequiredHeader(refused.headers.get("payment-required") ?? "");
    expect(required).toMatchObject({
      x402Version: 2,
      error: "insufficient_balance",
      resource: { url: renewUrl(server.id), description: expect.stringContaining("Renew server") },
      accepts: [{ network: "eip155:8453", amount: PRICE_UNITS.toString(), payTo: chains.payTo }],
    });
    const after = (await api(`/servers/${server.id}`, { key: apiKey })).body;
    expect(after.expires_at).toBe(server.expires_at);
    expect(await balanceOf(apiKey)).toBe(4);
  });

  it("the official v1 client pays: settled once, credited then charged, one month on, the balance unchanged", async () => {
    const { apiKey, server } = await serverShortOfRenewal();
    const payer = await fundedWallet(50_000_000n);
    const payToBefore = await usdcBalance(chains.payTo);
    const response = await v1PayingFetch(payer)(renewUrl(server.id), {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "x-forwarded-for": randomIp() },
    });
    expect(response.status).toBe(200);
    const renewed = (await response.json()) as Server;
    expect(new Date(renewed.expires_at).getTime()).toBe(oneMonthLater(server.expires_at));
    const settlement = decodePaymentResponseHeader(response.headers.get("x-payment-response") ?? "");
    expect(settlement).toMatchObject({ success: true, network: "base", payer: payer.address });
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + PRICE_UNITS);
    expect(await usdcBalance(payer.address)).toBe(50_000_000n - PRICE_UNITS);
    expect(await balanceOf(apiKey)).toBe(4);
    expect(await usdcTopups(apiKey)).toEqual([
      expect.objectContaining({ status: "completed", credited_usd: 21 }),
    ]);
  });

  it("the official v2 client pays with PAYMENT-SIGNATURE and is answered with PAYMENT-RESPONSE", async () => {
    const { apiKey, server } = await serverShortOfRenewal();
    const payer = await fundedWallet(PRICE_UNITS);
    const client = new x402Client()
      .register("eip155:*", new ExactEvmScheme(payer))
      .setSpendControls({ maxAmountPerPayment: "$2000" });
    const response = await wrapFetchWithPayment(fetch, client)(renewUrl(server.id), {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "x-forwarded-for": randomIp() },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-payment-response")).toBeNull();
    expect(decodePaymentResponseHeader(response.headers.get("payment-response") ?? "")).toMatchObject({
      success: true,
      network: "eip155:8453",
    });
    expect(new Date(((await response.json()) as Server).expires_at).getTime()).toBe(
      oneMonthLater(server.expires_at),
    );
    expect(await usdcBalance(payer.address)).toBe(0n);
    expect(await balanceOf(apiKey)).toBe(4);
  });

  it("the same payment sent twice renews once and moves the money once", async () => {
    const { apiKey, server } = await serverShortOfRenewal();
    const payer = await fundedWallet(50_000_000n);
    const signed = await signPayment(payer, PRICE_UNITS);
    const first = await renew(apiKey, server.id, { "x-payment": signed.header });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const nonceAfterFirst = await relayerNonce();
    const again = await renew(apiKey, server.id, { "x-payment": signed.header });
    expect(again.status).toBe(200);
    expect(again.body.expires_at).toBe(first.body.expires_at);
    expect(new Date(first.body.expires_at as string).getTime()).toBe(oneMonthLater(server.expires_at));
    expect(await relayerNonce()).toBe(nonceAfterFirst);
    expect(await usdcBalance(payer.address)).toBe(50_000_000n - PRICE_UNITS);
    expect(await balanceOf(apiKey)).toBe(4);
    expect(await usdcTopups(apiKey)).toHaveLength(1);
  });

  it("a payment for another amount is refused with the offer again, and nothing moves", async () => {
    const { apiKey, server } = await serverShortOfRenewal();
    const payer = await fundedWallet(50_000_000n);
    const signed = await signPayment(payer, 17_000_000n);
    const nonceBefore = await relayerNonce();
    const refused = await renew(apiKey, server.id, { "x-payment": signed.header });
    expect(refused.status).toBe(402);
    expect(errorCode(refused)).toBe("payment_amount_mismatch");
    expect(refused.body.accepts).toEqual([
      expect.objectContaining({ maxAmountRequired: PRICE_UNITS.toString(), resource: renewUrl(server.id) }),
    ]);
    expect((await api(`/servers/${server.id}`, { key: apiKey })).body.expires_at).toBe(server.expires_at);
    expect(await relayerNonce()).toBe(nonceBefore);
    expect(await usdcBalance(payer.address)).toBe(50_000_000n);
    expect(await balanceOf(apiKey)).toBe(4);
    expect(await usdcTopups(apiKey)).toEqual([]);
  });

  it("a payment is not taken when the balance covers the renewal", async () => {
    const { apiKey, server } = await serverShortOfRenewal();
    await fund(apiKey, 25);
    const payer = await fundedWallet(50_000_000n);
    const signed = await signPayment(payer, PRICE_UNITS);
    const renewed = await renew(apiKey, server.id, { "x-payment": signed.header });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get("x-payment-response")).toBeNull();
    expect(await usdcBalance(payer.address)).toBe(50_000_000n);
    expect(await balanceOf(apiKey)).toBe(8);
    expect(await usdcTopups(apiKey)).toEqual([]);
  });
});
