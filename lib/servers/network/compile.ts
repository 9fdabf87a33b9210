import ipaddr from "ipaddr.js";
import { type Family, familyOf, parseNetwork } from "./addresses";
import { defaultInbound, type FirewallRule, familiesOf, ruleKeys } from "./rules";

/**
 * The nftables table of one server on its host, from its rule list: pure text for `nft -f`.
 *
 * One table per server (`inet` family, so one rule set serves IPv4 and IPv6), hooked where every packet to or
 * from the server passes the host: `forward` (routed traffic, and bridged traffic too, since the host passes
 * bridged IP through its IP hooks: br_netfilter, `net.bridge.bridge-nf-call-ip(6)tables=1`). A packet is the
 * server's by its address, which the host's layer-2 filter (nwfilter) guarantees: a guest can only send from
 * its own. Traffic of the host itself (its readiness probe over SSH) passes no forward hook and is never
 * filtered.
 *
 * The script replaces the table in one transaction: it creates the table (a no-op when it exists), deletes it
 * and defines it anew; `nft -f` commits all of it or none, so the server is never unfiltered nor half-filtered
 * between two versions. Established connections survive a swap: their state lives in conntrack, not in the table.
 */

export type Counter = { packets: number; bytes: number };

/** Comments on the counted rules, read back to attach hits to rules (see counters in host-firewall.ts). */
export const COUNTER_COMMENTS = {
  rule: (key: string) => `rule ${key}`,
  defaultInbound: "default-inbound",
  smtp: "smtp",
  spoofedAdvert: "spoofed-neighbour-advert",
} as const;

export type FirewallTable = {
  /** The nftables table, one per server: see tableName. */
  table: string;
  /** The rule list's revision: written on the table, read back by the benchmark and reconciliation. */
  revision: number;
  /** The server's IPv4, or null (a host without a public network gives none). */
  ipv4: string | null;
  /** The server's routed /64 (`2001:db8:1:5::/64`), or null. */
  ipv6Prefix: string | null;
  /** The guest card's link-local address, the only link-local source it may use (with IPv6). */
  linkLocal: string | null;
  rules: FirewallRule[];
  /** Outbound SMTP (tcp 25) is dropped unless the operator opened it for this server. */
  smtpOpen: boolean;
  /** Counts carried over from the table being replaced, by counter comment. */
  carried?: ReadonlyMap<string, Counter>;
};

/** The table of the domain `vps-12`: `vpsfw_vps_12` (domain prefixes are lower-case letters, digits, hyphens). */
export function tableName(domain: string): string {
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(domain)) throw new RangeError(`no table name for domain ${domain}`);
  return `vpsfw_${domain.replace(/-/g, "_")}`;
}

const set = (items: string[]) => `{ ${items.join(", ")} }`;

function counter(comment: string, carried: ReadonlyMap<string, Counter> | undefined): string {
  const count = carried?.get(comment);
  return count ? `counter packets ${count.packets} bytes ${count.bytes}` : "counter";
}

/** The match of a rule's protocol and ports in one family (or both, `family` undefined). */
function protocolMatch(rule: FirewallRule, family: Family | undefined): string[] {
  if (rule.protocol === "any") return [];
  if (rule.protocol === "icmp") {
    if (family === 4) return ["meta l4proto icmp"];
    if (family === 6) return ["meta l4proto ipv6-icmp"];
    return ["meta l4proto { icmp, ipv6-icmp }"];
  }
  if (rule.ports === null) return [`meta l4proto ${rule.protocol}`];
  return [`${rule.protocol} dport ${set(rule.ports.split(","))}`];
}

function addressMatch(field: "saddr" | "daddr", networks: string[], family: Family): string[] {
  const own = networks.filter((network) => familyOf(network) === family);
  if (own.length === 0) return [];
  return [`${family === 4 ? "ip" : "ip6"} ${field} ${set(own)}`];
}

/** The nftables lines of one rule: one line, or one per family when it names addresses of both. */
export function ruleLines(rule: FirewallRule, key: string, carried?: ReadonlyMap<string, Counter>): string[] {
  const comment = COUNTER_COMMENTS.rule(key);
  const tail = `${counter(comment, carried)} ${rule.action} comment "${comment}"`;
  const named = rule.sources.length > 0 || rule.destinations.length > 0;
  if (!named) return [[...protocolMatch(rule, undefined), tail].join(" ")];
  // Carried counts go on the first family's line only: read back, the lines' counts are added up.
  return familiesOf(rule).map((family, index) =>
    [
      ...addressMatch("saddr", rule.sources, family),
      ...addressMatch("daddr", rule.destinations, family),
      ...protocolMatch(rule, family),
      index === 0 ? tail : `counter ${rule.action} comment "${comment}"`,
    ].join(" "),
  );
}

/** `@th,64,64 0x...`: the upper half of an IPv6 address as one 64-bit number (a /64's prefix). */
const upperHalf = (address: string) =>
  `0x${Buffer.from(ipaddr.parse(address).toByteArray().slice(0, 8)).toString("hex")}`;
const wholeAddress = (address: string) =>
  `0x${Buffer.from(ipaddr.parse(address).toByteArray()).toString("hex")}`;

/**
 * Neighbour advertisements from the guest may only speak for its own addresses: its /64 and its link-local
 * address (an advertisement's target is its bytes 8 to 23 past the ICMPv6 header). Layer 2 checks only the
 * source address; without this a guest could claim the gateway's address to its neighbours.
 */
function guardLines(input: FirewallTable): string[] {
  if (!input.ipv6Prefix || !input.linkLocal) return [];
  const prefix = parseNetwork(input.ipv6Prefix);
  if (!prefix) throw new RangeError(`not a prefix: ${input.ipv6Prefix}`);
  const from = `ip6 saddr ${set([input.linkLocal, input.ipv6Prefix])} icmpv6 type nd-neighbor-advert`;
  return [
    "\tchain guard {",
    "\t\ttype filter hook prerouting priority filter; policy accept;",
    `\t\t${from} @th,64,64 ${upperHalf(prefix.address)} accept`,
    `\t\t${from} @th,64,128 ${wholeAddress(input.linkLocal)} accept`,
    `\t\t${from} ${counter(COUNTER_COMMENTS.spoofedAdvert, input.carried)} drop comment "${COUNTER_COMMENTS.spoofedAdvert}"`,
    "\t}",
  ];
}

/** The definition of the server's table (without the lines that replace an existing one). */
export function tableDefinition(input: FirewallTable): string {
  const keys = ruleKeys(input.rules);
  const rulesOf = (direction: FirewallRule["direction"]) =>
    input.rules.flatMap((rule, index) =>
      rule.direction === direction ? ruleLines(rule, keys[index] ?? "", input.carried) : [],
    );
  const dispatch: string[] = [];
  const revision = `comment "revision ${input.revision}"`;
  if (input.ipv4) dispatch.push(`ip daddr ${input.ipv4} jump inbound`);
  if (input.ipv6Prefix) dispatch.push(`ip6 daddr ${input.ipv6Prefix} jump inbound`);
  if (input.ipv4) dispatch.push(`ip saddr ${input.ipv4} jump outbound`);
  if (input.ipv6Prefix) dispatch.push(`ip6 saddr ${input.ipv6Prefix} jump outbound`);
  // The revision rides on the first dispatch line: a table without addresses filters nothing, and says so.
  if (dispatch.length > 0) dispatch[0] = `${dispatch[0]} ${revision}`;
  const inbound = [
    "ct state established,related accept",
    // What IPv6 itself needs to reach the guest: neighbour discovery, and "packet too big" for path MTU.
    ...(input.ipv6Prefix
      ? ["icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, packet-too-big } accept"]
      : []),
    ...rulesOf("in"),
    ...(defaultInbound(input.rules) === "drop"
      ? [
          `${counter(COUNTER_COMMENTS.defaultInbound, input.carried)} drop comment "${COUNTER_COMMENTS.defaultInbound}"`,
        ]
      : []),
  ];
  const outbound = [
    "ct state established,related accept",
    ...(input.smtpOpen
      ? []
      : [
          `tcp dport 25 ${counter(COUNTER_COMMENTS.smtp, input.carried)} drop comment "${COUNTER_COMMENTS.smtp}"`,
        ]),
    ...rulesOf("out"),
  ];
  const chain = (name: string, lines: string[]) => [
    `\tchain ${name} {`,
    ...lines.map((l) => `\t\t${l}`),
    "\t}",
  ];
  return [
    `table inet ${input.table} {`,
    "\tchain forward {",
    "\t\ttype filter hook forward priority filter; policy accept;",
    ...dispatch.map((line) => `\t\t${line}`),
    "\t}",
    ...guardLines(input),
    ...chain("inbound", inbound),
    ...chain("outbound", outbound),
    "}",
  ].join("\n");
}

/** The whole `nft -f` script that swaps the server's table atomically (see the top of this file). */
export function swapScript(input: FirewallTable): string {
  return [`table inet ${input.table}`, `delete table inet ${input.table}`, tableDefinition(input), ""].join(
    "\n",
  );
}

/** Removes the server's table, whether or not it exists (one transaction too). */
export function removalScript(table: string): string {
  return `table inet ${table}\ndelete table inet ${table}\n`;
}

/** The revision a listed table carries (`comment "revision 7"`), or undefined. */
export function revisionOf(comments: string[]): number | undefined {
  for (const comment of comments) {
    const match = /^revision (\d+)$/.exec(comment);
    if (match) return Number(match[1]);
  }
  return undefined;
}
