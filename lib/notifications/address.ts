import ipaddr from "ipaddr.js";
import { MAX_URL_LENGTH } from "./types";

/**
 * Which addresses and URLs notifications may be sent to: the rules against server-side request forgery.
 * Pure; lib/notifications/transport.ts applies them to every address a name resolves to, at creation and
 * again before every delivery. Only globally routable unicast addresses are allowed (ipaddr.js's `unicast`
 * range, after an IPv4-mapped IPv6 address is read as the IPv4 address it carries); loopback only where tests
 * allow it.
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

/** Why an address may not be sent to, or undefined when it may. */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  const shown = parsed.toString();
  if (METADATA.has(shown)) return `${shown} is a cloud metadata address`;
  const range = parsed.range();
  if (range === "unicast") return undefined;
  if (range === "loopback" && policy.allowLoopback) return undefined;
  return `${shown} is ${RANGE_WORDS[range] ?? `a special-purpose address (${range})`}`;
}

export type UrlPolicy = AddressPolicy & {
  /** Production: https only. */
  httpsOnly: boolean;
};

/** The URL's host as a bare IP address when it is one (`[::1]` -> `::1`), else undefined. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return ipaddr.isValid(host) && (url.hostname.startsWith("[") || ipaddr.IPv4.isValidFourPartDecimal(host))
    ? host
    : undefined;
}

/**
 * The URL if it is well formed for a notification target, or why not: an absolute http(s) URL (https only in
 * production) without credentials or a fragment. Its host, a name or an address, is judged by
 * resolveTarget (lib/notifications/transport.ts).
 */
export function checkUrl(text: string, policy: UrlPolicy): { url: URL } | { problem: string } {
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
  return { url };
}
