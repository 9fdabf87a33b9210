import { BlockList, isIPv4, isIPv6 } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Client networks as CIDRs, IPv4 and IPv6: read from what a person writes, stored in one spelling, compared
 * with each other, and matched against a client address. An IPv4 address written IPv4-mapped
 * (`::ffff:192.0.2.1`, as a dual-stack socket reports it) is matched as the IPv4 address it is.
 */

/** A network to compare with another: its address and prefix length. */
export type Network = { readonly address: ipaddr.IPv4 | ipaddr.IPv6; readonly bits: number };

/** The stored spelling of a network, or why `text` is not one. */
export type NetworkReading = { network: string } | { problem: string };

const isAddress = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);

/**
 * Reads `203.0.113.0/24`, `2001:db8::/48` or a single address (a /32 or /128). Host bits set below the
 * prefix are refused rather than cleared: `10.1.2.3/8` is more likely a typo for a /24 than a wish for a /8.
 */
export function readNetwork(text: string): NetworkReading {
  const trimmed = text.trim();
  const [host = "", prefix, extra] = trimmed.split("/");
  if (extra !== undefined || !isAddress(host) || host.includes("%")) {
    return { problem: `${trimmed.slice(0, 60)} is not an IPv4 or IPv6 address or CIDR` };
  }
  const address = ipaddr.process(host);
  const max = address.kind() === "ipv4" ? 32 : 128;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
  if (!(bits >= 0 && bits <= max)) return { problem: `${trimmed} has a prefix length outside 0-${max}` };
  const spelled = `${address.toString()}/${bits}`;
  const network =
    address.kind() === "ipv4"
      ? ipaddr.IPv4.networkAddressFromCIDR(spelled)
      : ipaddr.IPv6.networkAddressFromCIDR(spelled);
  if (network.toString() !== address.toString()) {
    return { problem: `${trimmed} has host bits set: the network is ${network.toString()}/${bits}` };
  }
  return { network: spelled };
}

/** Parses stored spellings (readNetwork's output) for comparing. */
export function parseNetworks(stored: readonly string[]): Network[] {
  return stored.map((text) => {
    const [address, bits] = ipaddr.parseCIDR(text);
    return { address, bits };
  });
}

/** Whether `network` lies wholly inside `outer` (same family, no shorter prefix, inside its range). */
export function networkWithin(network: Network, outer: Network): boolean {
  return (
    network.address.kind() === outer.address.kind() &&
    network.bits >= outer.bits &&
    network.address.match(outer.address as never, outer.bits)
  );
}

/** Whether a client address is inside a key's networks. */
export type AddressMatcher = (address: string) => boolean;

const MATCHERS_KEPT = 10_000;
const ANSWERS_KEPT = 256;
const matchers = new Map<string, AddressMatcher>();

/**
 * A matcher for stored networks (readNetwork's output), made once per set of networks and kept: it is asked on
 * every request of a key that has networks. It matches with node's own BlockList (native code, which treats an
 * IPv4-mapped IPv6 address as its IPv4 address) and remembers its recent answers, since a key's requests come
 * from few addresses.
 */
export function networksMatcher(stored: readonly string[]): AddressMatcher {
  const id = stored.join(" ");
  const kept = matchers.get(id);
  if (kept) return kept;
  const list = new BlockList();
  for (const text of stored) {
    const [address = "", bits = ""] = text.split("/");
    list.addSubnet(address, Number(bits), isIPv4(address) ? "ipv4" : "ipv6");
  }
  const answers = new Map<string, boolean>();
  const matcher: AddressMatcher = (address) => {
    const known = answers.get(address);
    if (known !== undefined) return known;
    const family = isIPv4(address) ? "ipv4" : isIPv6(address) && !address.includes("%") ? "ipv6" : undefined;
    const inside = family !== undefined && list.check(address, family);
    if (answers.size >= ANSWERS_KEPT) answers.clear();
    answers.set(address, inside);
    return inside;
  };
  if (matchers.size >= MATCHERS_KEPT) matchers.clear();
  matchers.set(id, matcher);
  return matcher;
}
