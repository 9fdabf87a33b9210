import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoinGeckoRates, DemoFixedRates, RateUnavailableError } from "./rates";

describe("DemoFixedRates", () => {
  it("is labelled as demo and quotes every coin", async () => {
    const rates = new DemoFixedRates();
    expect(rates.name).toBe("demo-fixed");
    for (const coin of ["BTC", "XMR", "ETH", "LTC", "USDT", "USDTTRC"] as const) {
      expect(Number(await rates.usdPerCoin(coin))).toBeGreaterThan(0);
    }
  });
});

describe("CoinGeckoRates against a local price endpoint", () => {
  let server: Server;
  let baseUrl: string;
  let requests = 0;
  let failing = false;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests += 1;
      if (failing) {
        response.writeHead(502).end();
        return;
      }
      expect(request.url).toContain("/simple/price?ids=");
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ bitcoin: { usd: 96123.45 }, monero: { usd: 158.2 }, tether: { usd: 1.0002 } }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reads prices once per snapshot and formats them with 8 decimals", async () => {
    const rates = new CoinGeckoRates(baseUrl, 60_000);
    const [btc, xmr, usdt] = await Promise.all([
      rates.usdPerCoin("BTC"),
      rates.usdPerCoin("XMR"),
      rates.usdPerCoin("USDTTRC"),
    ]);
    expect([btc, xmr, usdt]).toEqual(["96123.45000000", "158.20000000", "1.00020000"]);
    expect(requests).toBe(1);
  });

  it("reports a missing coin and an unreachable source as RateUnavailableError", async () => {
    await expect(new CoinGeckoRates(baseUrl, 0).usdPerCoin("LTC")).rejects.toBeInstanceOf(
      RateUnavailableError,
    );
    failing = true;
    await expect(new CoinGeckoRates(baseUrl, 0).usdPerCoin("BTC")).rejects.toThrow(/unreachable/);
    failing = false;
  });

  it("remembers a failed fetch for a few seconds, so an outage does not cost every caller a request", async () => {
    const rates = new CoinGeckoRates(baseUrl, 60_000);
    failing = true;
    const before = requests;
    await expect(rates.usdPerCoin("BTC")).rejects.toBeInstanceOf(RateUnavailableError);
    await expect(rates.usdPerCoin("XMR")).rejects.toBeInstanceOf(RateUnavailableError);
    expect(requests - before).toBe(1);
    failing = false;
    // With no snapshot kept (0 s), nothing is remembered either: every call asks.
    const fresh = new CoinGeckoRates(baseUrl, 0);
    await fresh.usdPerCoin("BTC");
    await fresh.usdPerCoin("BTC");
    expect(requests - before).toBe(3);
  });
});
