import "server-only";
import { isIPv4, isIPv6 } from "node:net";
import { tooManyRequests } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { processWide } from "@/lib/util/process-wide";
import { clientFromChain, forwardedClient, socketAddress } from "./client-address";
import { type RateLimitSpec, rateLimitSettings } from "./config";
import { DatabaseWindowLimiter, FixedWindowLimiter, type RateLimiter, type StoreFailure } from "./limiter";

type Limiters = {
  accountCreate: RateLimiter;
  authFailures: RateLimiter;
  /** Failed dashboard sign-ins, per client address. */
  loginFailures: RateLimiter;
  /** Wrong TOTP codes per account and client address: one address cannot lock the owner out. */
  totpFailures: RateLimiter;
  /** Wrong TOTP codes per account from all addresses, looser: the code stays unguessable from many. */
  totpAccountFailures: RateLimiter;
  /**
   * Wrong recovery codes per account and client address, and deliberately no per-account ceiling: one would
   * be a lock that whoever holds the login token could close on the owner, and 60-bit codes need none.
   */
  recoveryFailures: RateLimiter;
  /** Reads through the dashboard's wallet RPC, per client address: they spend the settlement node's quota. */
  walletRpc: RateLimiter;
  /** x402 payment attempts, per account (`account:ID`) and per client address (`address:ADDR`). */
  x402Attempts: RateLimiter;
  /** Power actions, password changes and reinstalls, per account: each runs virsh and openssl on a host. */
  hostOperations: RateLimiter;
  /** Test sends and redeliveries of notifications, per account: each is a request to a URL it chose. */
  notificationSends: RateLimiter;
  /** New and changed notification URLs, per account: each has a name the account chose resolved. */
  webhookUrls: RateLimiter;
  /** Console tickets per account (`account:ID`), and per server (`server:ID`) under a limiter of its own. */
  consoleTickets: RateLimiter;
  consoleTicketsServer: RateLimiter;
  /** Failed operator sign-ins, per client address (`address:ADDR`) and per operator (`operator:ID`). */
  operatorSignIn: RateLimiter;
  /** Operator API requests, per operator: a stolen session cannot sweep the data at will. */
  operatorRequests: RateLimiter;
};

/**
 * One set of limits per process, shared by every route bundle. On PostgreSQL the counters live in the
 * database, so the limits hold for the whole deployment; on PGlite (one process) they live in memory.
 * When the counters cannot be reached, guesses at secrets and money paths fail closed (503: they need the
 * database anyway) and the wallet's chain reads, which do not, fail open.
 */
export function limiters(): Limiters {
  return processWide("rate-limiters", (): Limiters => {
    const { databaseUrl } = config();
    const rateLimits = rateLimitSettings();
    const make = (name: string, spec: RateLimitSpec, onStoreFailure: StoreFailure): RateLimiter =>
      databaseUrl
        ? new DatabaseWindowLimiter(name, spec, db, onStoreFailure)
        : new FixedWindowLimiter(name, spec);
    return {
      accountCreate: make("account-create", rateLimits.accountCreate, "closed"),
      authFailures: make("auth-failures", rateLimits.authFailures, "closed"),
      loginFailures: make("login-failures", rateLimits.loginFailures, "closed"),
      totpFailures: make("totp-failures", rateLimits.totpFailures, "closed"),
      totpAccountFailures: make("totp-account-failures", rateLimits.totpAccountFailures, "closed"),
      recoveryFailures: make("recovery-failures", rateLimits.recoveryFailures, "closed"),
      walletRpc: make("wallet-rpc", rateLimits.walletRpc, "open"),
      x402Attempts: make("x402-attempts", rateLimits.x402Attempts, "closed"),
      hostOperations: make("host-operations", rateLimits.hostOperations, "closed"),
      notificationSends: make("notification-sends", rateLimits.notificationSends, "closed"),
      webhookUrls: make("webhook-urls", rateLimits.webhookUrls, "closed"),
      consoleTickets: make("console-tickets", rateLimits.consoleTickets, "closed"),
      consoleTicketsServer: make("console-tickets-server", rateLimits.consoleTicketsServer, "closed"),
      operatorSignIn: make("operator-sign-in", rateLimits.operatorSignIn, "closed"),
      operatorRequests: make("operator-requests", rateLimits.operatorRequests, "closed"),
    };
  });
}

/**
 * The client's own address: the one our own dashboard server vouched for when it calls the API for a
 * browser, else TRUST_PROXY_HOPS steps left of the socket along X-Forwarded-For (0: the socket's own address).
 */
export function clientIp(headers: Headers): string {
  const settings = config();
  const vouched = forwardedClient(headers, settings.clientAddressKey);
  if (vouched) return vouched;
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  return clientFromChain(chain, socketAddress(headers), settings.trustProxyHops);
}

/** The client as limits count it (limitKeyForAddress of its address). */
export function clientAddress(headers: Headers): string {
  return limitKeyForAddress(clientIp(headers));
}

/**
 * The unit a client is counted by: an IPv4 address (also when written IPv4-mapped), or the /64 of an IPv6
 * address, since one IPv6 customer usually holds a whole /64 and could otherwise rotate through it.
 */
export function limitKeyForAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address.slice(0, 64);
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = address.includes("::") && tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * Runs `work` under the limiter: counts one event for `key` (429 past the limit), gives it back if the work
 * fails, and returns the result with the RateLimit headers to send.
 */
export async function withQuota<T>(
  limiter: RateLimiter,
  key: string,
  work: () => Promise<T>,
): Promise<{ result: T; headers: Record<string, string> }> {
  const headers = await consume(limiter, key);
  try {
    return { result: await work(), headers };
  } catch (error) {
    await limiter.refund(key);
    throw error;
  }
}

/** Counts one event for `key`; past the limit throws 429 with Retry-After, else returns the RateLimit headers. */
export async function consume(limiter: RateLimiter, key: string): Promise<Record<string, string>> {
  const result = await limiter.hit(key);
  const { limit, windowSeconds } = limiter.spec;
  const headers = {
    "RateLimit-Policy": `"${limiter.name}";q=${limit};w=${windowSeconds}`,
    RateLimit: `"${limiter.name}";r=${result.remaining};t=${result.resetSeconds}`,
  };
  if (!result.allowed) throw tooManyRequests(result.resetSeconds, headers);
  return headers;
}

export type QuotaOutcome<T> = { result: T } | { error: unknown };

/**
 * Runs `work` counted once under every one of `keys` (e.g. an account and an address): when any of them is
 * past the limit, 429 with Retry-After before the work, and none is counted. After the work, `counts` says
 * whether its outcome uses the quota; when it does not, the events are given back.
 */
export async function withQuotas<T>(
  limiter: RateLimiter,
  keys: string[],
  work: () => Promise<T>,
  counts: (outcome: QuotaOutcome<T>) => boolean,
): Promise<T> {
  const giveBack = async () => {
    await Promise.all(keys.map((key) => limiter.refund(key)));
  };
  const results = await Promise.allSettled(keys.map((key) => limiter.hit(key)));
  const failed = results.find((outcome) => outcome.status === "rejected");
  if (failed) {
    // A store failing closed: give back the events that were counted, then answer as it said.
    await Promise.all(
      keys.filter((_, i) => results[i]?.status === "fulfilled").map((key) => limiter.refund(key)),
    );
    throw failed.reason;
  }
  const refused = results.flatMap((outcome) =>
    outcome.status === "fulfilled" && !outcome.value.allowed ? [outcome.value] : [],
  );
  if (refused.length > 0) {
    await giveBack();
    const { limit, windowSeconds } = limiter.spec;
    throw tooManyRequests(Math.max(...refused.map((result) => result.resetSeconds)), {
      "RateLimit-Policy": `"${limiter.name}";q=${limit};w=${windowSeconds}`,
    });
  }
  let result: T;
  try {
    result = await work();
  } catch (error) {
    if (!counts({ error })) await giveBack();
    throw error;
  }
  if (!counts({ result })) await giveBack();
  return result;
}
