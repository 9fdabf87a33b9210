import "server-only";
import { tooManyRequests } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { FixedWindowLimiter } from "./limiter";

type Limiters = { accountCreate: FixedWindowLimiter; authFailures: FixedWindowLimiter };

// One set of counters per process, shared by every route bundle.
const LIMITERS = Symbol.for("vps.rate-limiters");
type GlobalWithLimiters = typeof globalThis & { [LIMITERS]?: Limiters };

export function limiters(): Limiters {
  const holder = globalThis as GlobalWithLimiters;
  if (!holder[LIMITERS]) {
    const { rateLimits } = config();
    holder[LIMITERS] = {
      accountCreate: new FixedWindowLimiter("account-create", rateLimits.accountCreate),
      authFailures: new FixedWindowLimiter("auth-failures", rateLimits.authFailures),
    };
  }
  return holder[LIMITERS];
}

/**
 * The client's address. `next start` fills X-Forwarded-For with the socket's address when the request has
 * none, and a reverse proxy appends the address it saw; so with TRUST_PROXY_HOPS trusted hops the client
 * is that many entries from the right.
 */
export function clientAddress(headers: Headers): string {
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (chain.length === 0) return "unknown";
  const index = Math.max(0, chain.length - config().trustProxyHops);
  return chain[index] ?? "unknown";
}

/** Counts one event for `key`; past the limit throws 429 with Retry-After, else returns the RateLimit headers. */
export function consume(limiter: FixedWindowLimiter, key: string): Record<string, string> {
  const result = limiter.hit(key);
  const { limit, windowSeconds } = limiter.spec;
  if (!result.allowed) throw tooManyRequests(result.resetSeconds, limiter.name, limit, windowSeconds);
  return {
    "RateLimit-Policy": `"${limiter.name}";q=${limit};w=${windowSeconds}`,
    RateLimit: `"${limiter.name}";r=${result.remaining};t=${result.resetSeconds}`,
  };
}
