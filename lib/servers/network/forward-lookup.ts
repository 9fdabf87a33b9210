import { Resolver } from "node:dns/promises";
import { canonicalAddress } from "./addresses";

/**
 * Forward-confirmed reverse DNS: a PTR is accepted only when its name resolves (A for an IPv4 address, AAAA
 * for IPv6) to the address it is set for. The lookup goes through c-ares (`dns.promises.Resolver`), on
 * sockets of its own with its own timeout, never through getaddrinfo on libuv's threadpool, where a slow
 * resolver would hold the threads file and crypto work wait on.
 */

export type ForwardLookup =
  | { confirmed: true; addresses: string[] }
  | { confirmed: false; addresses: string[]; reason: string }
  /** The resolvers did not answer: nothing can be said about the name. */
  | { unavailable: true; reason: string };

/** What c-ares's codes mean, in the words a customer reads. */
const CODES: Record<string, string> = {
  ENOTFOUND: "the name does not exist",
  ENODATA: "the name has no address of that family",
  ESERVFAIL: "its DNS servers failed to answer",
  EREFUSED: "the resolver refused to answer for it",
};

export async function forwardConfirm(
  name: string,
  address: string,
  options: { resolvers: string[]; timeoutMs: number },
): Promise<ForwardLookup> {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
  if (options.resolvers.length > 0) resolver.setServers(options.resolvers);
  const family = address.includes(":") ? 6 : 4;
  let addresses: string[];
  try {
    addresses = family === 4 ? await resolver.resolve4(name) : await resolver.resolve6(name);
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    if (code === "ETIMEOUT" || code === "ECONNREFUSED" || code === "ECANCELLED") {
      return { unavailable: true, reason: `no resolver answered for ${name} (${code})` };
    }
    const record = family === 4 ? "A" : "AAAA";
    return {
      confirmed: false,
      addresses: [],
      reason: `${name} has no ${record} record: ${CODES[code] ?? code}`,
    };
  } finally {
    resolver.cancel();
  }
  // c-ares writes IPv6 its own way: compared in the canonical form.
  const canonical = addresses.map((found) => canonicalAddress(found) ?? found);
  if (canonical.includes(address)) return { confirmed: true, addresses: canonical };
  return {
    confirmed: false,
    addresses: canonical,
    reason: `${name} resolves to ${canonical.join(", ")}, not to ${address}`,
  };
}
