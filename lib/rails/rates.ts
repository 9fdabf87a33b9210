import "server-only";
import { z } from "zod";
import { envSlice, httpUrl } from "@/lib/config/slice";
import { DEPOSIT_COINS, type DepositCoinCode } from "@/lib/rails/registry";
import { processWide } from "@/lib/util/process-wide";

/**
 * Where the USD price of a coin comes from: when a top-up locks its rate, and when a payment outside the
 * quote is credited at the lower of that rate and the market's.
 */
export interface RateSource {
  /** Shown on every top-up as `rate_source`, so a demo rate is never mistaken for a market one. */
  readonly name: string;
  /** USD per whole coin as a decimal string (at most 8 decimals). */
  usdPerCoin(coin: DepositCoinCode): Promise<string>;
}

export class RateUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RateUnavailableError";
  }
}

/** Fixed, round prices for demo mode: labelled `demo-fixed`, never used when a real source is configured. */
export const DEMO_RATES = Object.fromEntries(
  Object.values(DEPOSIT_COINS).map((coin) => [coin.code, coin.demoRate]),
) as Record<DepositCoinCode, string>;

export class DemoFixedRates implements RateSource {
  readonly name = "demo-fixed";
  async usdPerCoin(coin: DepositCoinCode): Promise<string> {
    return DEMO_RATES[coin];
  }
}

/** CoinGecko's id of each coin (the registry's `rateId`). */
const COINGECKO_IDS = Object.fromEntries(
  Object.values(DEPOSIT_COINS).map((coin) => [coin.code, coin.rateId]),
) as Record<DepositCoinCode, string>;

/**
 * Market prices from a CoinGecko-compatible `/simple/price` endpoint. All coins are fetched in one call
 * and kept for `ttlMs`, so a burst of top-ups costs one request and shares one snapshot of the market.
 * A failed fetch is remembered for a few seconds too, so an outage does not cost every caller a timeout.
 */
export class CoinGeckoRates implements RateSource {
  readonly name = "coingecko";
  private snapshot?: { at: number; prices: Record<string, number> };
  private failure?: { at: number; error: RateUnavailableError };
  private inflight?: Promise<Record<string, number>>;

  constructor(
    private readonly baseUrl: string,
    private readonly ttlMs = 60_000,
    private readonly timeoutMs = 5_000,
  ) {}

  async usdPerCoin(coin: DepositCoinCode): Promise<string> {
    const prices = await this.prices();
    const price = prices[COINGECKO_IDS[coin]];
    if (typeof price !== "number" || !Number.isFinite(price) || price <= 0) {
      throw new RateUnavailableError(`no USD price for ${coin}`);
    }
    // The API answers with JSON numbers; 8 decimals is finer than any exchange quotes a USD price.
    return price.toFixed(8);
  }

  private async prices(): Promise<Record<string, number>> {
    if (this.snapshot && Date.now() - this.snapshot.at < this.ttlMs) return this.snapshot.prices;
    if (this.failure && Date.now() - this.failure.at < Math.min(this.ttlMs, 5_000)) throw this.failure.error;
    this.inflight ??= this.fetchPrices().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchPrices(): Promise<Record<string, number>> {
    const ids = [...new Set(Object.values(COINGECKO_IDS))].join(",");
    const url = `${this.baseUrl.replace(/\/$/, "")}/simple/price?ids=${ids}&vs_currencies=usd`;
    let body: unknown;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      body = await response.json();
    } catch (error) {
      this.failure = {
        at: Date.now(),
        error: new RateUnavailableError(`rate source unreachable: ${(error as Error).message}`),
      };
      throw this.failure.error;
    }
    const prices: Record<string, number> = {};
    for (const [id, entry] of Object.entries((body ?? {}) as Record<string, { usd?: unknown }>)) {
      if (typeof entry?.usd === "number") prices[id] = entry.usd;
    }
    this.snapshot = { at: Date.now(), prices };
    return prices;
  }
}

/** Where market prices come from; `cacheSeconds`: how long one snapshot is reused (0: asked afresh every time). */
export const RATE_SETTINGS = envSlice({
  name: "rates",
  shape: {
    RATE_SOURCE: z.enum(["demo-fixed", "coingecko"]).optional(),
    RATE_SOURCE_URL: httpUrl,
    RATE_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  },
  derive: (values, { mode }) => ({
    kind: values.RATE_SOURCE ?? (mode === "demo" ? "demo-fixed" : "coingecko"),
    url: values.RATE_SOURCE_URL ?? "https://api.coingecko.com/api/v3",
    cacheSeconds: values.RATE_CACHE_SECONDS,
  }),
});

/** The configured rate source, one per process (its snapshot is shared by every caller). */
export function rateSource(): RateSource {
  return processWide("topups.rate-source", () => {
    const { kind, url, cacheSeconds } = RATE_SETTINGS.read();
    return kind === "demo-fixed" ? new DemoFixedRates() : new CoinGeckoRates(url, cacheSeconds * 1000);
  });
}
