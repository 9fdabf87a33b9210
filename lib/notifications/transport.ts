import "server-only";
import { Resolver as AresResolver } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { firstLine } from "@/lib/util/log";
import { addressRefusal, effectiveAddress, literalAddress, portRefusal, type UrlPolicy } from "./address";
import { notificationSettings } from "./config";

/** A delivery that has not been answered by then failed. */
export const SEND_TIMEOUT_MS = 5_000;
/** A name that has not resolved by then is not sent to. */
const RESOLVE_TIMEOUT_MS = 3_000;
/** Of an answer, this many bytes are kept (for the delivery log), and no more are read. */
export const RESPONSE_EXCERPT_BYTES = 256;

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

type NameResolverOptions = {
  /** `address` or `address:port` of the name servers to ask; unset: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
  /** After this long a name that has not resolved is given up on (every outstanding query cancelled). */
  timeoutMs?: number;
};

/** DNS error codes that mean the name has no address (as opposed to: no answer came). */
const NO_SUCH_NAME = new Set(["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"]);

/**
 * A resolver for names customers choose: c-ares (node:dns Resolver), which works on the event loop's sockets,
 * never getaddrinfo, which holds one of libuv's four shared threads until libc gives up (up to tens of
 * seconds for a name whose servers drop queries) while compression, file reads, scrypt and every other
 * lookup of the process wait for it. It asks DNS only: /etc/hosts and whatever else the system's resolver
 * consults take no part. A and AAAA are asked at once, each query timing out by itself, and what is still
 * outstanding at `timeoutMs` is cancelled.
 */
export function nameResolver(options: NameResolverOptions = {}): Resolver {
  const timeoutMs = options.timeoutMs ?? RESOLVE_TIMEOUT_MS;
  return async (hostname) => {
    // A channel per name: cancelling it at the deadline cancels this name's queries only.
    const resolver = new AresResolver({ timeout: Math.max(100, Math.floor(timeoutMs / 3)), tries: 2 });
    if (options.servers?.length) resolver.setServers([...options.servers]);
    const deadline = setTimeout(() => resolver.cancel(), timeoutMs);
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      const addresses: ResolvedAddress[] = [
        ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
      ];
      if (addresses.length > 0) return addresses;
      const errors = [v4, v6].flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
      const unanswered = errors.find((error) => !NO_SUCH_NAME.has((error as { code?: string }).code ?? ""));
      if (unanswered) throw unanswered;
      return [];
    } finally {
      clearTimeout(deadline);
    }
  };
}

/** The resolver deliveries and checks use: NOTIFY_DNS_SERVERS, or the system's name servers. */
const configuredResolver: Resolver = (hostname) =>
  nameResolver({ servers: notificationSettings().dnsServers })(hostname);

/** A guard for a resolver that does not keep its own deadline (the c-ares one does; a test's may not). */
function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** `localhost` and names under it are loopback by definition (RFC 6761), whatever a resolver says. */
const loopbackName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/**
 * The one address a URL's host is sent to, or why it may not be: the name is resolved once, and every
 * address it has must be allowed (a name with one private address among public ones is refused, since which
 * one a later lookup would return is not ours to choose). The caller connects to the address returned and
 * to nothing else, so a name that changes its answer between the check and the connection (DNS rebinding)
 * cannot lead anywhere unchecked.
 */
export async function resolveTarget(
  url: URL,
  policy: UrlPolicy,
  resolver: Resolver = configuredResolver,
): Promise<{ target: ResolvedAddress } | { refused: string }> {
  const literal = literalAddress(url);
  if (literal) {
    const refusal = addressRefusal(literal, policy) ?? portRefusal(url, policy, literal);
    return refusal ? { refused: refusal } : { target: connectable(literal) };
  }
  const host = url.hostname;
  if (loopbackName(host) && !policy.allowLoopback) return { refused: `${host} is a loopback name` };
  let addresses: ResolvedAddress[];
  try {
    addresses = await withTimeout(resolver(host), RESOLVE_TIMEOUT_MS, "the name did not resolve in time");
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      refused:
        code && NO_SUCH_NAME.has(code)
          ? `${host} does not resolve`
          : code === undefined || code === "ETIMEOUT" || code === "ECANCELLED"
            ? `${host} could not be resolved in time`
            : `${host} could not be resolved (${code})`,
    };
  }
  if (addresses.length === 0) return { refused: `${host} does not resolve` };
  // Which non-public address a name has is not told: an internal name's answer would map the network.
  if (addresses.some(({ address }) => addressRefusal(address, policy))) {
    return { refused: `${host} resolves to a non-public address` };
  }
  const target = connectable((addresses[0] as ResolvedAddress).address);
  const port = portRefusal(url, policy, target.address);
  return port ? { refused: port } : { target };
}

/** Where a checked address is connected to: the IPv4 address an IPv6 form carries, else itself. */
function connectable(address: string): ResolvedAddress {
  const effective = effectiveAddress(address);
  return { address: effective.toString(), family: effective.kind() === "ipv6" ? 6 : 4 };
}

export type SendRequest = { url: URL; headers: Record<string, string>; body: string };

/** What one attempt came to: a status when the receiver answered, else why not. */
export type SendOutcome = {
  status: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
};

/** A lookup that answers with the address checked before, whatever is asked. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/** Socket and TLS failures in words for the delivery log (never more than a line). */
function describeSendError(error: unknown): string {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
    case "ETIMEDOUT":
      return "connection timed out";
    default:
      if (code?.startsWith("ERR_TLS") || code?.includes("CERT") || code === "DEPTH_ZERO_SELF_SIGNED_CERT") {
        return `TLS: ${code}`;
      }
      return firstLine(error).slice(0, 200) || "failed";
  }
}

/**
 * One POST to an endpoint: resolved and checked first (see resolveTarget), then sent to that address only
 * (TLS still checks the certificate against the URL's name). Redirects are not followed (a 3xx is an answer
 * like any other, and not a success); the whole exchange ends after SEND_TIMEOUT_MS; of the answer only the
 * first RESPONSE_EXCERPT_BYTES are read.
 */
export async function send(
  request: SendRequest,
  policy: UrlPolicy,
  resolver?: Resolver,
  timeoutMs = SEND_TIMEOUT_MS,
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (policy.httpsOnly && request.url.protocol !== "https:") {
    return { status: null, error: "refused: only https URLs are sent to", excerpt: null, durationMs: 0 };
  }
  const resolved = await resolveTarget(request.url, policy, resolver);
  if ("refused" in resolved) {
    return { status: null, error: `refused: ${resolved.refused}`, excerpt: null, durationMs: elapsed() };
  }
  const transport = request.url.protocol === "https:" ? https : http;
  const body = Buffer.from(request.body, "utf8");
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const outgoing = transport.request(
      request.url,
      {
        method: "POST",
        headers: { ...request.headers, "content-length": String(body.length) },
        lookup: pinnedLookup(resolved.target),
        // A socket of its own: a pooled one could have been opened to another address.
        agent: false,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const excerpt = Buffer.concat(chunks).toString("utf8").replaceAll("\u0000", "");
          finish({ status: response.statusCode ?? null, error: null, excerpt: excerpt || null });
          response.destroy();
        };
        response.on("data", (chunk: Buffer) => {
          if (kept < RESPONSE_EXCERPT_BYTES) {
            const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
            chunks.push(part);
            kept += part.length;
          }
          // Enough is known: the rest of a large answer is never read.
          if (kept >= RESPONSE_EXCERPT_BYTES) done();
        });
        response.on("end", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ status: null, error: `no answer within ${timeoutMs / 1000} s`, excerpt: null });
      outgoing.destroy();
    }, timeoutMs);
    outgoing.on("error", (error) => finish({ status: null, error: describeSendError(error), excerpt: null }));
    outgoing.end(body);
  });
}
