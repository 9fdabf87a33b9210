import ipaddr from "ipaddr.js";

/**
 * Client networks as CIDRs, IPv4 and IPv6: read from what a person writes, stored in one spelling, and
 * matched against a client address. An IPv4 address written IPv4-mapped (`::ffff:192.0.2.1`, as a dual-stack
 * socket reports it) is matched as the IPv4 address it is.
 */

/** A network ready to match: its address and prefix length, parsed once. */
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

/** Parses stored spellings (readNetwork's output) for matching. */
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

/** Whether the client `address` is inside one of `networks`; an unparsable address is inside none. */
export function addressAllowed(address: string, networks: readonly Network[]): boolean {
  if (!isAddress(address)) return false;
  const client = ipaddr.process(address);
  return networks.some(
    (network) =>
      network.address.kind() === client.kind() && client.match(network.address as never, network.bits),
  );
}
