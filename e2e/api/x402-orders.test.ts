/**
 * An order paid with x402 on the local Base chain, settled only once the server answers: the 402 offers the
 * order's price valid long enough for the build, the official client pays, the payment is held while the
 * server is built and settled once it is active (a top-up credited and the order charged, the balance as it
 * was); one payment orders once; a payer who moves the funds before settlement gets a stopped server and is
 * charged nothing.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, inject, it } from "vitest";
import { api, baseUrl, createAccount, errorCode, randomIp, until, waitForServer } from "./helpers";
import {
  balanceOf,
  fundedWallet,
  settlementNode,
  signPayment,
  submitToToken,
  usdcBalance,
  v1PayingFetch,
} from "./x402-signing";

const chains = inject("chains");
/** A Pup in Amsterdam: 4 USD a month. */
const ORDER = { plan: "pup", location: "nl", os: "debian-13" };
const PRICE_UNITS = 4_000_000n;

type Server = { id: number; status: string; status_reason: string | null; power_state: string | null };

const order = (key: string, headers: Record<string, string> = {}) =>
  api("/servers", { method: "POST", key, body: ORDER, headers });
const usdcTopups = async (key: string) =>
  (
    (await api("/topups", { key })).body.topups as { coin: string; status: string; credited_usd: number }[]
  ).filter((topup) => topup.coin === "USDCBASE");
/** An authorization valid long enough for the build (the offer asks for its maxTimeoutSeconds). */
const validForTheBuild = () => ({ validBefore: BigInt(Math.floor(Date.now() / 1000) + 590) });

afterEach(async () => {
  await settlementNode({ mode: "up" });
});

describe("an order the balance does not cover, paid with x402 and settled once the server answers", () => {
  it("402 offers exactly the order's price, valid long enough for the build, and orders nothing", async () => {
    const { apiKey } = await createAccount();
    const refused = await order(apiKey);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      error: "insufficient_balance",
      price: 4,
      balance: 0,
      deficit: 4,
      x402Version: 1,
      accepts: [
        {
          network: "base",
          maxAmountRequired: PRICE_UNITS.toString(),
          resource: `${baseUrl()}/servers`,
          payTo: chains.payTo,
          description: expect.stringContaining("settled once the server answers on SSH"),
        },
      ],
    });
    const [offer] = refused.body.accepts as { maxTimeoutSeconds: number }[];
    // The build (1 s here), the wait for SSH (300 s by default) and time to settle: beyond a top-up's 300 s.
    expect(offer?.maxTimeoutSeconds).toBe(601);
    expect(refused.headers.get("payment-required")).toBeTruthy();
    expect((await api("/servers", { key: apiKey })).body.servers).toEqual([]);
  });

  it("the official client pays: the server is built with the payment held, and settled once it is active", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(10_000_000n);
    const payToBefore = await usdcBalance(chains.payTo);
    const response = await v1PayingFetch(payer)(`${baseUrl()}/servers`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "x-forwarded-for": randomIp(),
      },
      body: JSON.stringify(ORDER),
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as Server & { root_password: string };
    expect(created.status).toBe("provisioning");
    expect(created.root_password).toBeTruthy();
    // While it is built, nothing has moved.
    const built = await until(
      async () => {
        const server = (await api(`/servers/${created.id}`, { key: apiKey })).body as unknown as Server;
        const payerUnits = await usdcBalance(payer.address);
        if (server.status === "provisioning") expect(payerUnits).toBe(10_000_000n);
        return server;
      },
      (server) => server.status !== "provisioning",
    );
    expect(built.status).toBe("active");
    const activeAt = Date.now();
    // Settled by the background's next pass (every 5 s here): credited as a top-up and charged for the order.
    const topups = await until(
      () => usdcTopups(apiKey),
      (list) => list.length > 0,
    );
    console.log(
      `x402 order: credited and charged ${Date.now() - activeAt} ms after the server was seen active`,
    );
    expect(topups).toEqual([expect.objectContaining({ status: "completed", credited_usd: 4 })]);
    expect(await usdcBalance(payer.address)).toBe(10_000_000n - PRICE_UNITS);
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore + PRICE_UNITS);
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it("the same payment sent twice orders once and moves the money once", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(10_000_000n);
    const signed = await signPayment(payer, PRICE_UNITS, validForTheBuild());
    const first = await order(apiKey, { "x-payment": signed.header });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await order(apiKey, { "x-payment": signed.header });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await api("/servers", { key: apiKey })).body.servers).toHaveLength(1);
    // Another account sending the same authorization (copied while it was held) orders nothing.
    const other = await createAccount();
    const copied = await order(other.apiKey, { "x-payment": signed.header });
    expect([copied.status, errorCode(copied)]).toEqual([402, "payment_already_used"]);
    expect((await api("/servers", { key: other.apiKey })).body.servers).toEqual([]);
    await waitForServer<Server>(apiKey, first.body.id as number, (s) => s.status === "active");
    await until(
      () => usdcTopups(apiKey),
      (list) => list.length > 0,
    );
    expect(await usdcBalance(payer.address)).toBe(10_000_000n - PRICE_UNITS);
    expect(await usdcTopups(apiKey)).toHaveLength(1);
    expect(await balanceOf(apiKey)).toBe(0);
  });

  it("a payment that expires before the build could end is refused, and nothing is ordered", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(10_000_000n);
    // Four minutes, as a top-up's offer allows: too short for this order's window.
    const signed = await signPayment(payer, PRICE_UNITS);
    const refused = await order(apiKey, { "x-payment": signed.header });
    expect(refused.status).toBe(402);
    expect(errorCode(refused)).toBe("payment_window_too_short");
    expect(refused.body.accepts).toEqual([expect.objectContaining({ maxTimeoutSeconds: 601 })]);
    expect((await api("/servers", { key: apiKey })).body.servers).toEqual([]);
    expect(await usdcBalance(payer.address)).toBe(10_000_000n);
  });

  it("a payer who moves the funds before settlement: the server is stopped and suspended, and nothing is charged", async () => {
    const { apiKey } = await createAccount();
    const payer = await fundedWallet(PRICE_UNITS);
    const signed = await signPayment(payer, PRICE_UNITS, validForTheBuild());
    // The payer's other authorization: everything to an address of its own.
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
    const drain = await signPayment(payer, PRICE_UNITS, { to: elsewhere });
    const payToBefore = await usdcBalance(chains.payTo);
    const ordered = await order(apiKey, { "x-payment": signed.header });
    expect(ordered.status, JSON.stringify(ordered.body)).toBe(201);
    // The app cannot reach the chain until the funds have gone: its settlement waits, then finds them gone.
    await settlementNode({ mode: "down" });
    await waitForServer<Server>(apiKey, ordered.body.id as number, (s) => s.status === "active");
    await submitToToken(drain.message, drain.signature);
    await settlementNode({ mode: "up" });
    const suspended = await waitForServer<Server>(
      apiKey,
      ordered.body.id as number,
      (s) => s.status === "suspended",
      30_000,
    );
    expect(suspended.status_reason).toContain("The x402 payment for this order could not be settled");
    expect(suspended.status_reason).toContain("does not hold enough USDC");
    await until(
      async () =>
        ((await api(`/servers/${ordered.body.id}`, { key: apiKey })).body as unknown as Server).power_state,
      (state) => state === "stopped",
    );
    expect(await usdcBalance(chains.payTo)).toBe(payToBefore);
    expect(await usdcBalance(elsewhere)).toBe(PRICE_UNITS);
    expect(await balanceOf(apiKey)).toBe(0);
    expect(await usdcTopups(apiKey)).toEqual([]);
  });
});
