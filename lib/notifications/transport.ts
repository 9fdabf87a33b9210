import "server-only";
import { lookup as systemLookup } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { firstLine } from "@/lib/util/log";
import { addressRefusal, literalAddress, type UrlPolicy } from "./address";

/** A delivery that has not been answered by then failed. */
export const SEND_TIMEOUT_MS = 5_000;
/** A name that has not resolved by then is not sent to. */
const RESOLVE_TIMEOUT_MS = 3_000;
/** Of an answer, this many bytes are kept (for the delivery log), and no more are read. */
export const RESPONSE_EXCERPT_BYTES = 256;

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system's resolver (getaddrinfo: /etc/hosts, then DNS), every address of the name. */
const systemResolver: Resolver = async (hostname) =>
  (await systemLookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

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
  resolver: Resolver = systemResolver,
): Promise<{ target: ResolvedAddress } | { refused: string }> {
  const literal = literalAddress(url);
  if (literal) {
    const refusal = addressRefusal(literal, policy);
    return refusal
      ? { refused: refusal }
      : { target: { address: literal, family: isIP(literal) === 6 ? 6 : 4 } };
  }
  const host = url.hostname;
  let addresses: ResolvedAddress[];
  try {
    addresses = await withTimeout(resolver(host), RESOLVE_TIMEOUT_MS, "the name did not resolve in time");
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      refused:
        code === "ENOTFOUND" || code === "ENODATA"
          ? `${host} does not resolve`
          : `${host} could not be resolved (${code ?? firstLine(error)})`,
    };
  }
  if (addresses.length === 0) return { refused: `${host} does not resolve` };
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) return { refused: `${host} resolves to ${refusal.replace(/^\S+ is /, `${address}, `)}` };
  }
  return { target: addresses[0] as ResolvedAddress };
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
