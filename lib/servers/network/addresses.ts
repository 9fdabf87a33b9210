import ipaddr from "ipaddr.js";

/**
 * Addresses as the network code reads and writes them: IPv6 in its canonical text (RFC 5952: lower case,
 * zeros compressed), prefixes as `address/length`, and the reverse-DNS names of both families. Pure.
 */

export type Family = 4 | 6;

/** The canonical text of an IP address (IPv4 dotted quad, IPv6 per RFC 5952), or undefined if it is not one. */
export function canonicalAddress(text: string): string | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text).toString();
  if (!ipaddr.IPv6.isValid(text) || text.includes("%")) return undefined;
  return ipaddr.IPv6.parse(text).toRFC5952String();
}

export const familyOf = (address: string): Family => (address.includes(":") ? 6 : 4);

export type Network = { address: string; length: number; family: Family };

/**
 * A network in CIDR notation (or a bare address, a /32 or /128), with the host bits cleared; undefined when
 * the text is not one. `2001:db8::1/64` reads as `2001:db8::/64`.
 */
export function parseNetwork(text: string): Network | undefined {
  const [address = "", length, ...rest] = text.split("/");
  if (rest.length > 0) return undefined;
  const canonical = canonicalAddress(address);
  if (!canonical) return undefined;
  const family = familyOf(canonical);
  const max = family === 4 ? 32 : 128;
  if (length !== undefined && !/^\d{1,3}$/.test(length)) return undefined;
  const bits = length === undefined ? max : Number(length);
  if (bits > max) return undefined;
  const parsed = ipaddr.parse(canonical);
  const bytes = parsed.toByteArray();
  for (let bit = bits; bit < max; bit++) {
    const index = Math.floor(bit / 8);
    bytes[index] = (bytes[index] ?? 0) & ~(0x80 >> (bit % 8));
  }
  const cleared = ipaddr.fromByteArray(bytes);
  const shown = cleared.kind() === "ipv6" ? (cleared as ipaddr.IPv6).toRFC5952String() : cleared.toString();
  return { address: shown, length: bits, family };
}

/** A network as text: a single address without its length (`192.0.2.1`), else `address/length`. */
export const networkText = (network: Network) =>
  network.length === (network.family === 4 ? 32 : 128)
    ? network.address
    : `${network.address}/${network.length}`;

/** Whether `address` (canonical) lies inside `network`. */
export function contains(network: Network, address: string): boolean {
  if (familyOf(address) !== network.family) return false;
  return ipaddr.parse(address).match(ipaddr.parse(network.address), network.length);
}

/** A /64 prefix's address with `host` as its interface identifier's last 16 bits: (`2001:db8:1:5::/64`, 1) -> `2001:db8:1:5::1`. */
export function addressInPrefix(prefix: string, host: number): string {
  const network = parseNetwork(prefix);
  if (network?.family !== 6) throw new RangeError(`not an IPv6 prefix: ${prefix}`);
  const bytes = ipaddr.parse(network.address).toByteArray();
  bytes[14] = (host >> 8) & 0xff;
  bytes[15] = host & 0xff;
  return (ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String();
}

/** The server's own address in its /64: `::1` of it, which the seed configures and the host routes to. */
export const serverIpv6Address = (prefix: string) => addressInPrefix(prefix, 1);

/**
 * The `index`-th /64 of a shorter prefix (index 0 is its first): (`2001:db8:77:100::/56`, 5) ->
 * `2001:db8:77:105::/64`. Throws past the prefix's end.
 */
export function nthSlash64(prefix: Network, index: number): string {
  const available = 2 ** (64 - prefix.length);
  if (!Number.isInteger(index) || index < 0 || index >= available) {
    throw new RangeError(`no /64 number ${index} in ${networkText(prefix)}`);
  }
  const bytes = ipaddr.parse(prefix.address).toByteArray();
  // Bits prefix.length .. 63 carry the index: add it to the upper 64 bits, byte by byte from the right.
  let carry = index;
  for (let byte = 7; byte >= 0 && carry > 0; byte--) {
    const sum = (bytes[byte] ?? 0) + (carry % 256);
    bytes[byte] = sum % 256;
    carry = Math.floor(carry / 256) + Math.floor(sum / 256);
  }
  return `${(ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String()}/64`;
}

/** How many /64s a prefix holds (capped: a /32 holds 2^32, more than any host is given). */
export const slash64Count = (prefix: Network) => 2 ** Math.min(32, 64 - prefix.length);

/** The reverse-DNS name of an address: `10.0.18.198.in-addr.arpa` or the 32 nibbles under `ip6.arpa`. */
export function reverseName(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv4") return `${parsed.toByteArray().reverse().join(".")}.in-addr.arpa`;
  const nibbles = parsed
    .toByteArray()
    .flatMap((byte) => [byte >> 4, byte & 15])
    .map((nibble) => nibble.toString(16));
  return `${nibbles.reverse().join(".")}.ip6.arpa`;
}

/**
 * The reverse zone an address's PTR is kept in: its /24 (`0.18.198.in-addr.arpa`) for IPv4, and for IPv6 the
 * zone of the prefix it was handed out from, at the nibble boundary at or above it (a /56 -> 14 nibbles).
 */
export function reverseZone(address: string, ipv6PrefixLength = 48): string {
  const name = reverseName(address);
  if (familyOf(address) === 4) return name.split(".").slice(1).join(".");
  const nibbles = Math.floor(ipv6PrefixLength / 4);
  return name
    .split(".")
    .slice(32 - nibbles)
    .join(".");
}

/** The generated host name of an address under `domain`: `198-18-0-10.rdns.example.net`, `2001-db8-77-105--1.rdns.example.net`. */
export const defaultPtrName = (address: string, domain: string) =>
  `${address.replace(/[.:]/g, "-")}.${domain}`;

/**
 * The EUI-64 link-local address of a MAC (`52:54:00:00:00:0c` -> `fe80::5054:ff:fe00:c`): what the guest's
 * kernel forms for its card, the only link-local source its filter lets out.
 */
export function linkLocalOf(mac: string): string {
  const bytes = mac.split(":").map((part) => Number.parseInt(part, 16));
  if (bytes.length !== 6 || bytes.some((byte) => !Number.isInteger(byte) || byte < 0 || byte > 255)) {
    throw new RangeError(`not a MAC: ${mac}`);
  }
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = bytes;
  const full = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, a ^ 0x02, b, c, 0xff, 0xfe, d, e, f];
  return (ipaddr.fromByteArray(full) as ipaddr.IPv6).toRFC5952String();
}
