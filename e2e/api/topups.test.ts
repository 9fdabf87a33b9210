import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, createBase58check } from "@scure/base";
import { isAddress } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { deriveDepositAddress } from "@/lib/rails/addresses";
import type { WatchOnlyKeys } from "@/lib/rails/family";
import { type RunningApp, startApp } from "../support/app-server";
import { checkLedger } from "../support/ledger-check";
import { TEST_LIMITS } from "./global-setup";
import { api, createAccount, errorCode, withSecondApp } from "./helpers";

type Topup = {
  ref: string;
  status: string;
  amount_usd: number;
  coin: string;
  deposit_address: string;
  deposit_amount: string;
  deposit_coin: string;
  deposit_network: string;
  qr_data_uri: string;
  payment_uri: string;
  expires_at: string;
  credited_usd: number;
  received_amount: string;
  confirmed_amount: string;
  confirmations_required: number;
  payments: {
    tx_hash: string;
    amount: string;
    confirmations: number;
    credited_usd: number | null;
    credited_parts: { kind: string; amount: string; rate_usd: string; usd: number }[];
  }[];
  rate_usd: string;
  rate_source: string;
  demo: boolean;
};

const createTopup = async (key: string, body: unknown, headers: Record<string, string> = {}) =>
  api("/topups", { method: "POST", key, body, headers });

const balanceOf = async (key: string) => (await api("/account", { key })).body.balance_usd as number;

async function waitForTopup(
  key: string,
  ref: string,
  done: (topup: Topup) => boolean,
  timeoutMs = 15_000,
  base?: string,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await api(`/topups/${ref}`, { key, base });
    expect(result.status).toBe(200);
    const topup = result.body as unknown as Topup;
    if (done(topup)) return topup;
    if (Date.now() > deadline) throw new Error(`top-up ${ref} stuck: ${JSON.stringify(topup)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const base58check = createBase58check(sha256);

/** Checks each address with the chain's own encoding rules (not with the service's code). */
const validAddress: Record<string, (address: string) => boolean> = {
  bitcoin: (a) => {
    const decoded = bech32.decode(a as `${string}1${string}`);
    return (
      decoded.prefix === "bc" &&
      decoded.words[0] === 0 &&
      bech32.fromWords(decoded.words.slice(1)).length === 20
    );
  },
  litecoin: (a) => {
    const decoded = bech32.decode(a as `${string}1${string}`);
    return decoded.prefix === "ltc" && bech32.fromWords(decoded.words.slice(1)).length === 20;
  },
  ethereum: (a) => isAddress(a, { strict: true }) && a !== a.toLowerCase(),
  tron: (a) => {
    const bytes = base58check.decode(a);
    return bytes.length === 21 && bytes[0] === 0x41 && a.startsWith("T");
  },
  // Monero subaddresses: 95 base58 characters starting with 8 (network byte 42).
  monero: (a) => /^8[1-9A-HJ-NP-Za-km-z]{94}$/.test(a),
};

/** The app's demo watch-only keys (public keys only), to tell which derivation index an address has. */
function demoDepositKeys(): WatchOnlyKeys {
  const secrets = JSON.parse(readFileSync(path.join(inject("appDataDir"), "demo-secrets.json"), "utf8"));
  return secrets.depositKeys as WatchOnlyKeys;
}

function addressIndex(chain: "litecoin", keys: WatchOnlyKeys, address: string): number {
  for (let index = 0; index < 20_000; index++) {
    if (deriveDepositAddress(chain, keys, index) === address) return index;
  }
  throw new Error(`${address} is not among the first 20000 ${chain} addresses`);
}

describe("POST /topups validation", () => {
  it.each([
    [{ amount: 24.99, coin: "BTC" }, "amount_too_low"],
    [{ amount: 2000.01, coin: "BTC" }, "amount_too_high"],
    [{ amount: "50", coin: "BTC" }, "invalid_amount"],
    [{ coin: "BTC" }, "invalid_amount"],
    [{ amount: 25.001, coin: "BTC" }, "invalid_amount"],
    [{ amount: 50, coin: "DOGE" }, "invalid_coin"],
    [{ amount: 50, coin: "btc" }, "invalid_coin"],
    [{ amount: 50, coin: "BTC", extra: 1 }, "unknown_field"],
  ])("%j -> 400 %s, and nothing is created", async (body, code) => {
    const { apiKey } = await createAccount();
    const result = await createTopup(apiKey, body);
    expect(result.status).toBe(400);
    expect(errorCode(result)).toBe(code);
    expect((await api("/topups", { key: apiKey })).body.topups).toEqual([]);
  });

  it("needs a key", async () => {
    const result = await createTopup("", { amount: 50 });
    expect(result.status).toBe(401);
  });

  it("accepts the limits themselves and defaults to BTC", async () => {
    const { apiKey } = await createAccount();
    const low = await createTopup(apiKey, { amount: 25 });
    expect(low.status).toBe(201);
    expect(low.body.coin).toBe("BTC");
    const high = await createTopup(apiKey, { amount: 2000, coin: "LTC" });
    expect(high.status).toBe(201);
    expect(high.body.amount_usd).toBe(2000);
  });
});

describe("classic-coin top-ups", () => {
  it.each([
    ["BTC", "bitcoin", "bitcoin:"],
    ["LTC", "litecoin", "litecoin:"],
    ["XMR", "monero", "monero:"],
    ["ETH", "ethereum", "ethereum:"],
    ["USDT", "ethereum", "ethereum:"],
    ["USDTTRC", "tron", "tron:"],
  ])("%s: a valid %s address unique to the top-up, amount, QR and expiry", async (coin, network, scheme) => {
    const { apiKey } = await createAccount();
    const first = await createTopup(apiKey, { amount: 50, coin });
    const second = await createTopup(apiKey, { amount: 50, coin });
    expect(first.status).toBe(201);
    const topup = first.body as unknown as Topup;
    expect(topup).toMatchObject({
      status: "pending",
      amount_usd: 50,
      coin,
      deposit_coin: coin,
      deposit_network: network,
      credited_usd: 0,
      payments: [],
    });
    expect(topup.ref).toMatch(/^tp_[0-9a-z]{24}$/);
    expect(validAddress[network]?.(topup.deposit_address)).toBe(true);
    expect(second.body.deposit_address).not.toBe(topup.deposit_address);
    expect(topup.deposit_amount).toMatch(/^\d+\.\d+$/);
    expect(Number(topup.deposit_amount)).toBeGreaterThan(0);
    expect(topup.payment_uri.startsWith(scheme)).toBe(true);
    expect(topup.payment_uri).toContain(
      coin === "USDT" ? `address=${topup.deposit_address}` : topup.deposit_address,
    );
    const png = Buffer.from(topup.qr_data_uri.replace(/^data:image\/png;base64,/, ""), "base64");
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // Other suites move the service's test clock forward: compare with its time, not this machine's.
    const serviceNow = Date.parse((await api("/demo/clock")).body.now as string);
    const expiresIn = Date.parse(topup.expires_at) - serviceNow;
    expect(expiresIn).toBeGreaterThan(25 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * 60_000 + 5_000);
  });

  it("quotes stablecoins at par and BTC at the labelled demo rate", async () => {
    const { apiKey } = await createAccount();
    const usdt = (await createTopup(apiKey, { amount: 123.45, coin: "USDTTRC" })).body as unknown as Topup;
    expect(usdt.deposit_amount).toBe("123.45");
    const btc = (await createTopup(apiKey, { amount: 97, coin: "BTC" })).body as unknown as Topup;
    expect(btc.rate_source).toBe("demo-fixed");
    expect(btc.demo).toBe(true);
    expect(btc.deposit_amount).toBe("0.00100000"); // 97 USD at the demo rate of 97,000 USD/BTC
  });

  it("is readable by its owner only, and listed newest first", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const created = (await createTopup(owner.apiKey, { amount: 30, coin: "XMR" })).body as unknown as Topup;
    const later = (await createTopup(owner.apiKey, { amount: 40, coin: "BTC" })).body as unknown as Topup;
    expect((await api(`/topups/${created.ref}`, { key: owner.apiKey })).body.deposit_address).toBe(
      created.deposit_address,
    );
    const foreign = await api(`/topups/${created.ref}`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe("not_found");
    expect((await api("/topups/tp_nonexistent", { key: owner.apiKey })).status).toBe(404);
    const list = (await api("/topups", { key: owner.apiKey })).body.topups as Topup[];
    expect(list.map((t) => t.ref)).toEqual([later.ref, created.ref]);
    expect((await api("/topups", { key: other.apiKey })).body.topups).toEqual([]);
  });

  it("caps pending top-ups per account", async () => {
    const { apiKey } = await createAccount();
    for (let i = 0; i < 10; i++)
      expect((await createTopup(apiKey, { amount: 25, coin: "LTC" })).status).toBe(201);
    const refused = await createTopup(apiKey, { amount: 25, coin: "LTC" });
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("too_many_pending_topups");
  });

  it("limits deposit top-ups per account, cancelled ones included: 429 with Retry-After, nothing created", async () => {
    const { apiKey } = await createAccount();
    const other = await createAccount();
    const limit = TEST_LIMITS.depositTopups;
    // Create then cancel: the pending cap never bites, yet every address stays watched for days.
    for (let i = 0; i < limit; i++) {
      const created = await createTopup(apiKey, { amount: 25, coin: "LTC" });
      expect(created.status).toBe(201);
      const cancelled = await api(`/topups/${created.body.ref}/cancel`, { method: "POST", key: apiKey });
      expect(cancelled.status).toBe(200);
    }
    const before = await createTopup(other.apiKey, { amount: 25, coin: "LTC" });
    expect(before.status).toBe(201);

    const refused = await createTopup(apiKey, { amount: 25, coin: "LTC" });
    expect(refused.status).toBe(429);
    expect(errorCode(refused)).toBe("too_many_topups");
    expect(refused.body.message).toMatch(new RegExp(`${limit} deposit top-ups`));
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // The limit is per account, not per coin.
    expect((await createTopup(apiKey, { amount: 25, coin: "BTC" })).status).toBe(429);

    // The refusal created nothing and used no address: the other account gets the very next one.
    const list = await api("/topups?limit=100", { key: apiKey });
    expect(list.body.topups).toHaveLength(limit);
    const after = await createTopup(other.apiKey, { amount: 25, coin: "LTC" });
    expect(after.status).toBe(201);
    const keys = demoDepositKeys();
    const index = addressIndex("litecoin", keys, before.body.deposit_address as string);
    expect(after.body.deposit_address).toBe(deriveDepositAddress("litecoin", keys, index + 1));
  });
});

describe("demo payments", () => {
  const pay = (key: string, ref: string, body: unknown = {}) =>
    api(`/demo/topups/${ref}/pay`, { method: "POST", key, body });

  it("pending -> completed after the confirmations, crediting the amount exactly once", async () => {
    const { apiKey } = await createAccount();
    const topup = (await createTopup(apiKey, { amount: 50, coin: "BTC" })).body as unknown as Topup;
    const paid = await pay(apiKey, topup.ref);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("pending");
    expect(paid.body.received_amount).toBe(topup.deposit_amount);
    expect(paid.body.confirmed_amount).toBe("0.00000000");
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(50);
    expect(done.payments[0]?.confirmations).toBeGreaterThanOrEqual(done.confirmations_required);
    // Polling again, concurrently, never credits twice.
    await Promise.all(Array.from({ length: 10 }, () => api(`/topups/${topup.ref}`, { key: apiKey })));
    expect(await balanceOf(apiKey)).toBe(50);
  });

  it("credits a partial payment at the locked rate, then completes with the rest", async () => {
    const { apiKey } = await createAccount();
    const topup = (await createTopup(apiKey, { amount: 100, coin: "XMR" })).body as unknown as Topup;
    expect(topup.deposit_amount).toBe("0.62500000"); // at 160 USD/XMR
    await pay(apiKey, topup.ref, { amount: "0.25" });
    const partial = await waitForTopup(apiKey, topup.ref, (t) => t.credited_usd > 0);
    expect(partial.status).toBe("pending");
    expect(partial.credited_usd).toBe(40);
    await pay(apiKey, topup.ref, { amount: "0.375" });
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(100);
    expect(await balanceOf(apiKey)).toBe(100);
  });

  it("credits an overpayment on top, at the locked rate", async () => {
    const { apiKey } = await createAccount();
    const topup = (await createTopup(apiKey, { amount: 50, coin: "USDTTRC" })).body as unknown as Topup;
    await pay(apiKey, topup.ref, { amount: "60.5" });
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.status === "completed");
    expect(done.credited_usd).toBe(60.5);
    expect(await balanceOf(apiKey)).toBe(60.5);
  });

  it("refuses bad simulated amounts and other accounts' top-ups", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const topup = (await createTopup(owner.apiKey, { amount: 50, coin: "BTC" })).body as unknown as Topup;
    for (const amount of ["0", "0.000000001", "-1", "abc", "1000"]) {
      const result = await pay(owner.apiKey, topup.ref, { amount });
      expect(result.status, amount).toBe(400);
    }
    expect((await pay(other.apiKey, topup.ref)).status).toBe(404);
    expect((await api(`/topups/${topup.ref}`, { key: owner.apiKey })).body.payments).toEqual([]);
  });
});

describe("cancel and expiry", () => {
  it("the owner cancels a pending top-up; a second cancel is refused", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const topup = (await createTopup(owner.apiKey, { amount: 50, coin: "LTC" })).body as unknown as Topup;
    expect((await api(`/topups/${topup.ref}/cancel`, { method: "POST", key: other.apiKey })).status).toBe(
      404,
    );
    const cancelled = await api(`/topups/${topup.ref}/cancel`, { method: "POST", key: owner.apiKey });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    const again = await api(`/topups/${topup.ref}/cancel`, { method: "POST", key: owner.apiKey });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("topup_not_pending");
  });

  it("a payment sent after cancelling is still credited", async () => {
    const { apiKey } = await createAccount();
    const topup = (await createTopup(apiKey, { amount: 30, coin: "BTC" })).body as unknown as Topup;
    await api(`/topups/${topup.ref}/cancel`, { method: "POST", key: apiKey });
    await api(`/demo/topups/${topup.ref}/pay`, { method: "POST", key: apiKey, body: {} });
    const done = await waitForTopup(apiKey, topup.ref, (t) => t.credited_usd > 0);
    expect(done.status).toBe("completed");
    expect(await balanceOf(apiKey)).toBe(30);
  });

  it("cannot cancel once a payment has arrived", async () => {
    const { apiKey } = await createAccount();
    const topup = (await createTopup(apiKey, { amount: 30, coin: "BTC" })).body as unknown as Topup;
    await api(`/demo/topups/${topup.ref}/pay`, { method: "POST", key: apiKey, body: { amount: "0.0001" } });
    const refused = await api(`/topups/${topup.ref}/cancel`, { method: "POST", key: apiKey });
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("payment_received");
  });

  it("a top-up read just before its deadline reads expired right after it", async () => {
    const { apiKey } = await createAccount();
    const topup = (await createTopup(apiKey, { amount: 25, coin: "LTC" })).body as unknown as Topup;
    expect((await api(`/topups/${topup.ref}`, { key: apiKey })).body.status).toBe("pending");
    const moved = await api("/demo/clock", { method: "POST", body: { advance_seconds: 31 * 60 } });
    expect(moved.status).toBe(200);
    expect((await api(`/topups/${topup.ref}`, { key: apiKey })).body.status).toBe("expired");
  });

  it("pending -> expired at expires_at with nothing received; a late payment is still credited", async () => {
    const { apiKey } = await createAccount();
    const unpaid = (await createTopup(apiKey, { amount: 40, coin: "LTC" })).body as unknown as Topup;
    const partly = (await createTopup(apiKey, { amount: 85, coin: "LTC" })).body as unknown as Topup;
    await api(`/demo/topups/${partly.ref}/pay`, { method: "POST", key: apiKey, body: { amount: "0.5" } });
    await waitForTopup(apiKey, partly.ref, (t) => t.credited_usd > 0);
    const moved = await api("/demo/clock", { method: "POST", body: { advance_seconds: 31 * 60 } });
    expect(moved.status).toBe(200);
    const expired = await waitForTopup(apiKey, unpaid.ref, (t) => t.status !== "pending");
    expect(expired.status).toBe("expired");
    expect(expired.credited_usd).toBe(0);
    // Partly paid before expiry: expired too, with what arrived credited (0.5 LTC at 85 USD).
    const partlyExpired = await waitForTopup(apiKey, partly.ref, (t) => t.status !== "pending");
    expect(partlyExpired).toMatchObject({ status: "expired", credited_usd: 42.5 });
    // Paid in full after expiry: credited at the locked rate, and the top-up completes.
    await api(`/demo/topups/${unpaid.ref}/pay`, { method: "POST", key: apiKey, body: {} });
    const late = await waitForTopup(apiKey, unpaid.ref, (t) => t.credited_usd > 0);
    expect(late).toMatchObject({ status: "completed", credited_usd: 40 });
    expect(await balanceOf(apiKey)).toBe(82.5);
  });
});

describe("Idempotency-Key on POST /topups", () => {
  it("the same key and body return the same top-up; another body is refused", async () => {
    const { apiKey } = await createAccount();
    const headers = { "idempotency-key": `order-${Date.now()}` };
    const first = await createTopup(apiKey, { amount: 75, coin: "BTC" }, headers);
    const replays = await Promise.all(
      Array.from({ length: 5 }, () => createTopup(apiKey, { amount: 75, coin: "BTC" }, headers)),
    );
    expect(first.status).toBe(201);
    for (const replay of replays) {
      expect(replay.status).toBe(201);
      expect(replay.body.ref).toBe(first.body.ref);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    }
    const different = await createTopup(apiKey, { amount: 76, coin: "BTC" }, headers);
    expect(different.status).toBe(422);
    expect(errorCode(different)).toBe("idempotency_key_reused");
    expect((await api("/topups", { key: apiKey })).body.topups).toHaveLength(1);
  });

  it("keys are per account, and malformed keys are refused", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const headers = { "idempotency-key": "shared-key" };
    const first = await createTopup(a.apiKey, { amount: 25, coin: "LTC" }, headers);
    const second = await createTopup(b.apiKey, { amount: 25, coin: "LTC" }, headers);
    expect(second.status).toBe(201);
    expect(second.body.ref).not.toBe(first.body.ref);
    const bad = await createTopup(
      a.apiKey,
      { amount: 25, coin: "LTC" },
      { "idempotency-key": "x".repeat(256) },
    );
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("invalid_idempotency_key");
  });

  it("a failed request does not use up the key", async () => {
    const { apiKey } = await createAccount();
    const headers = { "idempotency-key": "retry-after-fix" };
    expect((await createTopup(apiKey, { amount: 5, coin: "BTC" }, headers)).status).toBe(400);
    expect((await createTopup(apiKey, { amount: 25, coin: "BTC" }, headers)).status).toBe(201);
  });
});

/** A CoinGecko-compatible `/simple/price` on loopback whose BTC price the test sets. */
async function startRateStub(): Promise<{
  url: string;
  setBtc: (usd: number) => void;
  stop: () => Promise<void>;
}> {
  let btc = 100_000;
  const server: Server = createServer((request, response) => {
    if (!request.url?.startsWith("/simple/price")) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        bitcoin: { usd: btc },
        monero: { usd: 160 },
        ethereum: { usd: 3200 },
        litecoin: { usd: 85 },
        tether: { usd: 1 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setBtc: (usd) => {
      btc = usd;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Payments outside the quote (after it expired or was cancelled, or beyond the asked amount) are worth
 * what the coins are worth when they are credited, never more than at the locked rate. Its own app reads
 * prices from a stub whose price the test moves; the price is read afresh each time (RATE_CACHE_SECONDS=0).
 */
describe("late and extra payments against a moving price", () => {
  let rates: Awaited<ReturnType<typeof startRateStub>>;
  let app: RunningApp;
  const call = (route: string, init: { method?: string; key?: string; body?: unknown } = {}) =>
    api(route, { ...init, base: app.url });

  beforeAll(async () => {
    rates = await startRateStub();
    // Its own embedded database: the shared app's watcher must not credit these top-ups at its own prices.
    const { DATABASE_URL: _shared, ...env } = inject("appEnv");
    app = await startApp({
      ...env,
      RATE_SOURCE: "coingecko",
      RATE_SOURCE_URL: rates.url,
      RATE_CACHE_SECONDS: "0",
    });
  }, 90_000);

  afterAll(async () => {
    await app?.stop();
    await rates?.stop();
  });

  it("credits late and extra coins at the lower of the locked and the current price, shown per payment", async () => {
    const { api_key: key } = (await call("/account", { method: "POST" })).body as { api_key: string };
    const create = async () => {
      const created = await call("/topups", { method: "POST", key, body: { amount: 25, coin: "BTC" } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ rate_usd: "100000", deposit_amount: "0.00025000" });
      return created.body as Topup;
    };
    const pay = async (ref: string, amount: string) =>
      expect((await call(`/demo/topups/${ref}/pay`, { method: "POST", key, body: { amount } })).status).toBe(
        200,
      );
    const settled = (ref: string) =>
      waitForTopup(
        key,
        ref,
        (t) => t.payments.every((p) => p.credited_usd !== null) && t.credited_usd > 0,
        15_000,
        app.url,
      );

    // All quoted at 100,000 USD/BTC: 0.00025 BTC for 25 USD.
    const onTime = await create();
    const cancelled = await create();
    const expiring = await create();
    const risen = await create();
    expect((await call(`/topups/${cancelled.ref}/cancel`, { method: "POST", key })).status).toBe(200);

    // BTC halves. Twice the asked amount inside the quote: the asked half keeps its 25 USD, the rest is
    // worth today's price.
    rates.setBtc(50_000);
    await pay(onTime.ref, "0.0005");
    const extra = await settled(onTime.ref);
    expect(extra).toMatchObject({ status: "completed", credited_usd: 37.5 });
    expect(extra.payments[0]).toMatchObject({
      amount: "0.00050000",
      credited_usd: 37.5,
      credited_parts: [
        { kind: "quote", amount: "0.00025000", rate_usd: "100000", usd: 25 },
        { kind: "excess", amount: "0.00025000", rate_usd: "50000", usd: 12.5 },
      ],
    });

    // Ten times the amount to the cancelled top-up: all of it late, at today's price.
    await pay(cancelled.ref, "0.0025");
    const afterCancel = await settled(cancelled.ref);
    expect(afterCancel).toMatchObject({ status: "completed", credited_usd: 125 });
    expect(afterCancel.payments[0]?.credited_parts).toEqual([
      { kind: "late", amount: "0.00250000", rate_usd: "50000", usd: 125 },
    ]);

    // Past the quote's expiry, exactly the asked amount: also late, at today's price.
    expect((await call("/demo/clock", { method: "POST", body: { advance_seconds: 31 * 60 } })).status).toBe(
      200,
    );
    await pay(expiring.ref, "0.00025");
    const late = await settled(expiring.ref);
    expect(late).toMatchObject({ status: "completed", credited_usd: 12.5 });
    expect(late.payments[0]?.credited_parts).toEqual([
      { kind: "late", amount: "0.00025000", rate_usd: "50000", usd: 12.5 },
    ]);

    // BTC doubles past the locked rate: a late payment is still worth the locked rate at most.
    rates.setBtc(200_000);
    await pay(risen.ref, "0.0005");
    const capped = await settled(risen.ref);
    expect(capped).toMatchObject({ status: "completed", credited_usd: 50 });
    expect(capped.payments[0]?.credited_parts).toEqual([
      { kind: "late", amount: "0.00050000", rate_usd: "100000", usd: 50 },
    ]);

    const account = await call("/account", { key });
    expect(account.body.balance_usd).toBe(37.5 + 125 + 12.5 + 50);
    // Polling again credits nothing more.
    await Promise.all(Array.from({ length: 5 }, () => call(`/topups/${onTime.ref}`, { key })));
    expect((await call("/account", { key })).body.balance_usd).toBe(225);

    // One ledger row per credited step, keyed by the top-up's running total; the ledger balances.
    await app.stop();
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create({ dataDir: path.join(app.dataDir, "pglite") });
    try {
      const query = async (text: string) => (await db.query<Record<string, unknown>>(text)).rows;
      expect((await checkLedger(query)).problems).toEqual([]);
      const rows = await query(
        "SELECT reference, amount_cents FROM ledger_entries WHERE kind = 'topup' ORDER BY id",
      );
      expect(rows.map((row) => [row.reference, Number(row.amount_cents)])).toEqual([
        [`topup:${onTime.ref}:3750`, 3750],
        [`topup:${cancelled.ref}:12500`, 12500],
        [`topup:${expiring.ref}:1250`, 1250],
        [`topup:${risen.ref}:5000`, 5000],
      ]);
    } finally {
      await db.close();
    }
  }, 90_000);
});

/**
 * Top-up reads may be reused: on PGlite until their tables are written, on PostgreSQL while the revisions of
 * the top-ups shown and their payments are unchanged (migration 0031). Each change made through `writer`
 * shows on the next read through `reader`, each read twice.
 */
async function topupChangesShowAtOnce(writer: string, reader: string) {
  const { apiKey } = await createAccount();
  const read = async (path: string) => {
    await api(path, { key: apiKey, base: reader });
    return (await api(path, { key: apiKey, base: reader })).body;
  };
  const listed = async () => (await read("/topups")).topups as Topup[];
  const create = async () => {
    const made = await api("/topups", { method: "POST", key: apiKey, body: { amount: 25 }, base: writer });
    expect(made.status).toBe(201);
    return made.body as unknown as Topup;
  };

  const first = await create();
  expect((await listed()).map((topup) => [topup.ref, topup.status])).toEqual([[first.ref, "pending"]]);
  expect(((await read(`/topups/${first.ref}`)) as unknown as Topup).payments).toEqual([]);

  const paid = await api(`/demo/topups/${first.ref}/pay`, {
    method: "POST",
    key: apiKey,
    body: {},
    base: writer,
  });
  expect(paid.status).toBe(200);
  const seen = (await read(`/topups/${first.ref}`)) as unknown as Topup;
  expect([seen.received_amount, seen.payments.length]).toEqual([first.deposit_amount, 1]);
  expect((await listed())[0]?.payments).toHaveLength(1);
  // The confirmations come from the background work, on whichever instance holds the watcher.
  const done = await waitForTopup(apiKey, first.ref, (topup) => topup.status === "completed", 30_000, reader);
  expect(done.credited_usd).toBe(25);
  expect((await listed())[0]).toMatchObject({ status: "completed", credited_usd: 25 });

  const second = await create();
  expect((await listed()).map((topup) => topup.ref)).toEqual([second.ref, first.ref]);
  const cancelled = await api(`/topups/${second.ref}/cancel`, { method: "POST", key: apiKey, base: writer });
  expect(cancelled.status).toBe(200);
  expect((await listed())[0]).toMatchObject({ ref: second.ref, status: "cancelled" });
  expect(((await read(`/topups/${second.ref}`)) as unknown as Topup).status).toBe("cancelled");
}

describe("top-up reads are never stale", () => {
  it("every change shows on the next read of the list and the top-up", async () => {
    await topupChangesShowAtOnce(inject("baseUrl"), inject("baseUrl"));
  }, 60_000);

  it.runIf(inject("dbTarget") === "postgres")(
    "a change made through another app process shows on the next read here",
    () => withSecondApp((second) => topupChangesShowAtOnce(inject("baseUrl"), second)),
    120_000,
  );
});
