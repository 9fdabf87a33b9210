import { describe, expect, it } from "vitest";
import {
  type FirewallTable,
  removalScript,
  revisionOf,
  ruleLines,
  swapScript,
  tableDefinition,
  tableName,
} from "./compile";
import { type FirewallRule, normaliseRule, type RuleInput, ruleKeys } from "./rules";

const rule = (input: Partial<RuleInput>): FirewallRule => {
  const made = normaliseRule({ direction: "in", protocol: "tcp", action: "accept", ...input });
  if (typeof made === "string") throw new Error(made);
  return made;
};

const lineOf = (input: Partial<RuleInput>) => ruleLines(rule(input), "k");

const base: FirewallTable = {
  table: tableName("vps-12"),
  revision: 7,
  ipv4: "198.18.0.10",
  ipv6Prefix: "2001:db8:77:105::/64",
  linkLocal: "fe80::5054:ff:fe00:c",
  rules: [],
  smtpOpen: false,
};

/** The lines of one chain of a table definition, without indentation. */
function chainOf(text: string, name: string): string[] {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.trim() === `chain ${name} {`);
  if (start < 0) return [];
  const end = lines.findIndex((line, index) => index > start && line.trim() === "}");
  return lines.slice(start + 1, end).map((line) => line.trim());
}

describe("the firewall compiler: one rule, every shape", () => {
  it("tcp and udp, with and without ports", () => {
    expect(lineOf({ ports: "22" })).toEqual(['tcp dport { 22 } counter accept comment "rule k"']);
    expect(lineOf({ ports: "80,443,8000-8100" })).toEqual([
      'tcp dport { 80, 443, 8000-8100 } counter accept comment "rule k"',
    ]);
    expect(lineOf({ protocol: "udp", ports: "53", action: "drop" })).toEqual([
      'udp dport { 53 } counter drop comment "rule k"',
    ]);
    expect(lineOf({ protocol: "udp" })).toEqual(['meta l4proto udp counter accept comment "rule k"']);
  });

  it("icmp covers ICMP and ICMPv6 unless the networks name one family; any matches every protocol", () => {
    expect(lineOf({ protocol: "icmp" })).toEqual([
      'meta l4proto { icmp, ipv6-icmp } counter accept comment "rule k"',
    ]);
    expect(lineOf({ protocol: "icmp", sources: ["192.0.2.0/24"] })).toEqual([
      'ip saddr { 192.0.2.0/24 } meta l4proto icmp counter accept comment "rule k"',
    ]);
    expect(lineOf({ protocol: "icmp", sources: ["2001:db8::/32"] })).toEqual([
      'ip6 saddr { 2001:db8::/32 } meta l4proto ipv6-icmp counter accept comment "rule k"',
    ]);
    expect(lineOf({ protocol: "any", action: "drop" })).toEqual(['counter drop comment "rule k"']);
    expect(lineOf({ protocol: "any", destinations: ["2001:db8:1::/48"], action: "drop" })).toEqual([
      'ip6 daddr { 2001:db8:1::/48 } counter drop comment "rule k"',
    ]);
  });

  it("networks of both families: one line per family, both counted under the rule", () => {
    expect(
      lineOf({ ports: "22", sources: ["203.0.113.0/24", "198.51.100.7", "2001:db8:beef::/48"] }),
    ).toEqual([
      'ip saddr { 203.0.113.0/24, 198.51.100.7 } tcp dport { 22 } counter accept comment "rule k"',
      'ip6 saddr { 2001:db8:beef::/48 } tcp dport { 22 } counter accept comment "rule k"',
    ]);
    // Sources and destinations together: only the family both name.
    expect(
      lineOf({
        protocol: "udp",
        sources: ["10.0.0.0/8", "2001:db8::/32"],
        destinations: ["2001:db8:77:105::25"],
      }),
    ).toEqual([
      'ip6 saddr { 2001:db8::/32 } ip6 daddr { 2001:db8:77:105::25 } meta l4proto udp counter accept comment "rule k"',
    ]);
  });

  it("carries a rule's counts into the new table, on its first line", () => {
    const carried = new Map([["rule k", { packets: 12, bytes: 720 }]]);
    expect(ruleLines(rule({ ports: "22", sources: ["10.0.0.0/8", "2001:db8::/32"] }), "k", carried)).toEqual([
      'ip saddr { 10.0.0.0/8 } tcp dport { 22 } counter packets 12 bytes 720 accept comment "rule k"',
      'ip6 saddr { 2001:db8::/32 } tcp dport { 22 } counter accept comment "rule k"',
    ]);
  });
});

describe("the firewall compiler: the server's table", () => {
  it("with no rules: stateful, open inbound, SMTP dropped outbound, neighbour advertisements guarded", () => {
    const text = tableDefinition(base);
    expect(chainOf(text, "forward")).toEqual([
      "type filter hook forward priority filter; policy accept;",
      'ip daddr 198.18.0.10 jump inbound comment "revision 7"',
      "ip6 daddr 2001:db8:77:105::/64 jump inbound",
      "ip saddr 198.18.0.10 jump outbound",
      "ip6 saddr 2001:db8:77:105::/64 jump outbound",
    ]);
    expect(chainOf(text, "inbound")).toEqual([
      "ct state established,related accept",
      "icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, packet-too-big } accept",
    ]);
    expect(chainOf(text, "outbound")).toEqual([
      "ct state established,related accept",
      'tcp dport 25 counter drop comment "smtp"',
    ]);
    const from = "ip6 saddr { fe80::5054:ff:fe00:c, 2001:db8:77:105::/64 } icmpv6 type nd-neighbor-advert";
    expect(chainOf(text, "guard")).toEqual([
      "type filter hook prerouting priority filter; policy accept;",
      `${from} @th,64,64 0x20010db800770105 accept`,
      `${from} @th,64,128 0xfe80000000000000505400fffe00000c accept`,
      `${from} counter drop comment "spoofed-neighbour-advert"`,
    ]);
  });

  it("with rules: each in its direction's chain in order, inbound dropped by default, SMTP by policy before any rule", () => {
    const rules = [
      rule({ ports: "22" }),
      rule({ direction: "out", protocol: "tcp", ports: "25", action: "accept" }),
      rule({ protocol: "icmp" }),
      rule({ direction: "out", protocol: "any", destinations: ["10.0.0.0/8"], action: "drop" }),
    ];
    const [ssh, mail, ping, lan] = ruleKeys(rules);
    const text = tableDefinition({ ...base, rules });
    expect(chainOf(text, "inbound")).toEqual([
      "ct state established,related accept",
      "icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, packet-too-big } accept",
      `tcp dport { 22 } counter accept comment "rule ${ssh}"`,
      `meta l4proto { icmp, ipv6-icmp } counter accept comment "rule ${ping}"`,
      'counter drop comment "default-inbound"',
    ]);
    expect(chainOf(text, "outbound")).toEqual([
      "ct state established,related accept",
      'tcp dport 25 counter drop comment "smtp"',
      `tcp dport { 25 } counter accept comment "rule ${mail}"`,
      `ip daddr { 10.0.0.0/8 } counter drop comment "rule ${lan}"`,
    ]);
    // Opened by the operator, the rule decides.
    expect(chainOf(tableDefinition({ ...base, rules, smtpOpen: true }), "outbound")).not.toContain(
      'tcp dport 25 counter drop comment "smtp"',
    );
  });

  it("without IPv6: no IPv6 dispatch, neighbour discovery or guard; without any address it filters nothing", () => {
    const text = tableDefinition({ ...base, ipv6Prefix: null, linkLocal: null });
    expect(text).not.toContain("ip6");
    expect(text).not.toContain("chain guard");
    expect(chainOf(text, "forward")).toHaveLength(3);
    expect(chainOf(tableDefinition({ ...base, ipv4: null, ipv6Prefix: null }), "forward")).toEqual([
      "type filter hook forward priority filter; policy accept;",
    ]);
  });

  it("swaps atomically: one script that creates, deletes and defines the table, for one nft transaction", () => {
    const script = swapScript(base);
    const lines = script.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "table inet vpsfw_vps_12",
      "delete table inet vpsfw_vps_12",
      "table inet vpsfw_vps_12 {",
    ]);
    // Only the one table is named: nothing else of the host's rule set is touched.
    expect(new Set([...script.matchAll(/table inet (\S+)/g)].map((m) => m[1]))).toEqual(
      new Set(["vpsfw_vps_12"]),
    );
    expect(script).not.toMatch(/flush ruleset/);
    expect(removalScript("vpsfw_vps_12")).toBe("table inet vpsfw_vps_12\ndelete table inet vpsfw_vps_12\n");
    expect(revisionOf(["rule x", "revision 7"])).toBe(7);
    expect(tableName("vpst-t31")).toBe("vpsfw_vpst_t31");
    expect(() => tableName("Vps 1; flush ruleset")).toThrow(RangeError);
  });
});
