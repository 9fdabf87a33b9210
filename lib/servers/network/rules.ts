import { createHash } from "node:crypto";
import type { FirewallRule } from "@/lib/db/types";
import { type Family, familyOf, type Network, networkText, parseNetwork } from "./addresses";
import {
  type DIRECTIONS,
  MAX_FIREWALL_RULES,
  MAX_RULE_NETWORKS,
  MAX_RULE_PORTS,
  type PROTOCOLS,
  type RULE_ACTIONS,
} from "./limits";

export { MAX_FIREWALL_RULES };

/**
 * A server's firewall as its owner writes it: an ordered list of rules, the first that matches a new
 * connection decides. Inbound traffic is dropped once any rule exists (nothing but what the rules accept
 * reaches the server), outbound traffic is open unless a rule drops it; answers to a connection the firewall
 * let through always pass (stateful). Pure: the compiler (compile.ts) and the simulator (simulate.ts) read it.
 */

export type Direction = (typeof DIRECTIONS)[number];
export type Protocol = (typeof PROTOCOLS)[number];
export type RuleAction = (typeof RULE_ACTIONS)[number];

/**
 * A rule as stored and shown: `ports` `22`, `8000-8100` or several joined by commas (null: every port, tcp and
 * udp only); `sources` and `destinations` the networks the packet comes from and goes to in canonical CIDR text
 * (empty: any; IPv4 and IPv6 may be mixed).
 */
export type { FirewallRule };

export type PortRange = { from: number; to: number };

/** `22,80-90` -> [{22,22},{80,90}], or why not. */
export function parsePorts(text: string): PortRange[] | string {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length > MAX_RULE_PORTS) return `at most ${MAX_RULE_PORTS} ports or ranges`;
  const ranges: PortRange[] = [];
  for (const part of parts) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    if (!match) return `"${part}" is not a port (1-65535) or a range (8000-8100)`;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (from < 1 || to > 65535 || from > to)
      return `"${part}" is not a port (1-65535) or a range (8000-8100)`;
    ranges.push({ from, to });
  }
  return ranges;
}

const portsText = (ranges: PortRange[]) =>
  ranges.map((range) => (range.from === range.to ? `${range.from}` : `${range.from}-${range.to}`)).join(",");

/** What a rule's address lists leave: the families it can match (an empty list matches both). */
export function familiesOf(rule: Pick<FirewallRule, "sources" | "destinations">): Family[] {
  let families: Family[] = [4, 6];
  for (const list of [rule.sources, rule.destinations]) {
    if (list.length === 0) continue;
    const present = new Set(list.map(familyOf));
    families = families.filter((family) => present.has(family));
  }
  return families;
}

/** A rule as the API receives it, before it is checked. */
export type RuleInput = {
  direction: Direction;
  protocol: Protocol;
  ports?: string | null;
  sources?: string[];
  destinations?: string[];
  action: RuleAction;
  description?: string | null;
};

function normaliseNetworks(list: string[] | undefined, field: string): string[] | string {
  const seen = new Set<string>();
  for (const text of list ?? []) {
    const network: Network | undefined = parseNetwork(text.trim());
    if (!network) return `${field}: "${text}" is not an IPv4 or IPv6 address or network (CIDR)`;
    seen.add(networkText(network));
  }
  if (seen.size > MAX_RULE_NETWORKS) return `${field}: at most ${MAX_RULE_NETWORKS} networks`;
  return [...seen];
}

/** The rule in its stored form, or what is wrong with it (a sentence naming the field). */
export function normaliseRule(input: RuleInput): FirewallRule | string {
  let ports: string | null = null;
  if (input.ports !== undefined && input.ports !== null && input.ports.trim() !== "") {
    if (input.protocol !== "tcp" && input.protocol !== "udp") {
      return "ports: only tcp and udp rules name ports (leave ports out for icmp and any)";
    }
    const parsed = parsePorts(input.ports);
    if (typeof parsed === "string") return `ports: ${parsed}`;
    ports = portsText(parsed);
  }
  const sources = normaliseNetworks(input.sources, "sources");
  if (typeof sources === "string") return sources;
  const destinations = normaliseNetworks(input.destinations, "destinations");
  if (typeof destinations === "string") return destinations;
  if (familiesOf({ sources, destinations }).length === 0) {
    return "sources and destinations share no address family: no packet could match";
  }
  const description = input.description?.trim() || null;
  return {
    direction: input.direction,
    protocol: input.protocol,
    ports,
    sources,
    destinations,
    action: input.action,
    description,
  };
}

/** Every rule normalised, or the first problem as `rule N: ...` (N counting from 1). */
export function normaliseRules(inputs: RuleInput[]): FirewallRule[] | string {
  if (inputs.length > MAX_FIREWALL_RULES) return `at most ${MAX_FIREWALL_RULES} rules`;
  const rules: FirewallRule[] = [];
  for (const [index, input] of inputs.entries()) {
    const rule = normaliseRule(input);
    if (typeof rule === "string") return `rule ${index + 1}: ${rule}`;
    rules.push(rule);
  }
  return rules;
}

/**
 * A key per rule that stays the same while the rule does (its matching fields, not its description or
 * place): the compiled rule carries it, so a rule's hit counters survive other rules being added, removed
 * or moved. Identical rules are told apart by their occurrence.
 */
export function ruleKeys(rules: FirewallRule[]): string[] {
  const seen = new Map<string, number>();
  return rules.map((rule) => {
    const hash = createHash("sha256")
      .update(
        JSON.stringify([
          rule.direction,
          rule.protocol,
          rule.ports,
          rule.sources,
          rule.destinations,
          rule.action,
        ]),
      )
      .digest("hex")
      .slice(0, 12);
    const occurrence = seen.get(hash) ?? 0;
    seen.set(hash, occurrence + 1);
    return `${hash}-${occurrence}`;
  });
}

/** Inbound's default once the list holds any rule: nothing reaches the server that no rule accepts. */
export const defaultInbound = (rules: FirewallRule[]): RuleAction => (rules.length > 0 ? "drop" : "accept");
