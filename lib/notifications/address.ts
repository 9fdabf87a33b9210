import ipaddr from "ipaddr.js";
import { MAX_URL_LENGTH } from "./types";

/**
 * Which addresses and URLs notifications may be sent to: the rules against server-side request forgery.
 * Pure; lib/notifications/transport.ts applies them to every address a name resolves to, at creation and
 * again before every delivery. An allowlist: IPv4 addresses ipaddr.js calls `unicast`, and IPv6 addresses
 * of global unicast space (2000::/3) outside its special-purpose ranges. An IPv6 address that carries an IPv4
 * one (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d) is judged, and sent to, as that IPv4 address.
 * Loopback only where tests allow it.
 */
export type AddressPolicy = { allowLoopback: boolean };

/** The instance metadata services of the large clouds: named as such in refusals. */
const METADATA = new Set(["169.254.169.254", "fd00:ec2::254", "100.100.100.200"]);

/** What ipaddr.js calls a range, as a refusal says it. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
  private: "a private address",
  uniqueLocal: "a private (unique local) address",
  reserved: "a reserved address",
  deprecatedSiteLocal: "a site-local address",
};

/** Global unicast IPv6 space: everything else of IPv6 is refused, whatever ipaddr.js's tables lack. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * The address as it is judged and connected to: an IPv6 address carrying an IPv4 one becomes that IPv4
 * address (mapped ::ffff:0:0/96 through ipaddr.process; compatible ::/96, other than :: and ::1, here).
 */
export function effectiveAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv6") {
    const parts = (parsed as ipaddr.IPv6).parts;
    const compatible =
      parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1);
    if (compatible) {
      const [high = 0, low = 0] = parts.slice(6);
      return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
    }
  }
  return parsed;
}

/** Why an address may not be sent to, or undefined when it may. */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = effectiveAddress(address);
  const shown = parsed.toString();
  if (METADATA.has(shown)) return `${shown} is a cloud metadata address`;
  const range = parsed.range();
  if (range === "loopback" && policy.allowLoopback) return undefined;
  if (range === "unicast") {
    if (parsed.kind() === "ipv4" || (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return undefined;
    return `${shown} is not a global unicast address`;
  }
  return `${shown} is ${RANGE_WORDS[range] ?? `a special-purpose address (${range})`}`;
}

export type UrlPolicy = AddressPolicy & {
  /** Production: https only. */
  httpsOnly: boolean;
  /** The ports a notification may be sent to: 443 (and 80 outside production), and those the operator allows. */
  ports: readonly number[];
};

const portOf = (url: URL) => (url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80);

const listed = (ports: readonly number[]) =>
  ports.length === 1 ? `port ${ports[0]}` : `ports ${ports.slice(0, -1).join(", ")} and ${ports.at(-1)}`;

/**
 * Why the URL's port may not be sent to, or undefined when it may. `address` is the checked address when it
 * is known: a loopback receiver (tests only) may listen on any port.
 */
export function portRefusal(url: URL, policy: UrlPolicy, address?: string): string | undefined {
  const port = portOf(url);
  if (policy.ports.includes(port)) return undefined;
  if (policy.allowLoopback && address !== undefined && effectiveAddress(address).range() === "loopback") {
    return undefined;
  }
  return `Port ${port} is not accepted: notifications are sent to ${listed(policy.ports)}.`;
}

/** The URL's host as a bare IP address when it is one (`[::1]` -> `::1`), else undefined. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return ipaddr.isValid(host) && (url.hostname.startsWith("[") || ipaddr.IPv4.isValidFourPartDecimal(host))
    ? host
    : undefined;
}

/**
 * The URL if it is well formed for a notification target, or why not: an absolute http(s) URL (https only in
 * production) without credentials or a fragment, to an allowed port (`refused`: a well-formed URL this
 * service does not send to). Its host, a name or an address, is judged by resolveTarget
 * (lib/notifications/transport.ts).
 */
export function checkUrl(
  text: string,
  policy: UrlPolicy,
): { url: URL } | { problem: string; refused?: true } {
  if (text.length > MAX_URL_LENGTH)
    return { problem: `The URL is longer than ${MAX_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: "Send url as an absolute http(s) URL." };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { problem: "Send url as an absolute http(s) URL." };
  }
  if (policy.httpsOnly && url.protocol !== "https:") {
    return { problem: "Only https URLs are accepted." };
  }
  if (url.username || url.password) {
    return {
      problem: "A URL with a user name or password is not accepted; use the signature to authenticate.",
    };
  }
  if (url.hash) return { problem: "A URL with a fragment (#…) is not accepted." };
  if (!url.hostname) return { problem: "The URL has no host." };
  // Decided here, before any name is resolved; where tests allow loopback, once the address is known.
  const port = policy.allowLoopback ? undefined : portRefusal(url, policy);
  if (port) return { problem: port, refused: true };
  return { url };
}
