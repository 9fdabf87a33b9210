import { contains, type Family, familyOf, parseNetwork } from "./addresses";
import { type Direction, defaultInbound, type FirewallRule, familiesOf, parsePorts } from "./rules";

/**
 * What the compiled table does with the first packet of a new connection, worked out from the rule list the
 * same way (compile.ts): the SMTP policy first (outbound tcp 25), then the rules in order, then the default.
 * Answers to a connection already let through always pass, so only new connections are asked about. Pure.
 */

export type Packet = {
  direction: Direction;
  protocol: "tcp" | "udp" | "icmp";
  /** The destination port (tcp and udp): the server's port inbound, the remote one outbound. */
  port: number | null;
  /** The other end's address: the packet's source inbound, its destination outbound. */
  remote: string;
  /** The server's address it concerns (its IPv4, or an address of its /64). */
  local: string;
};

export type Decision =
  | { verdict: "accept" | "drop"; by: "rule"; index: number }
  | { verdict: "accept" | "drop"; by: "default" }
  | { verdict: "drop"; by: "smtp_policy" };

const inAny = (networks: string[], address: string) =>
  networks.some((text) => {
    const network = parseNetwork(text);
    return network !== undefined && contains(network, address);
  });

function matches(rule: FirewallRule, packet: Packet, family: Family): boolean {
  if (rule.direction !== packet.direction) return false;
  if (!familiesOf(rule).includes(family)) return false;
  if (rule.protocol !== "any" && rule.protocol !== packet.protocol) return false;
  if (rule.ports !== null) {
    const ranges = parsePorts(rule.ports);
    if (typeof ranges === "string" || packet.port === null) return false;
    if (
      !ranges.some((range) => packet.port !== null && range.from <= packet.port && packet.port <= range.to)
    ) {
      return false;
    }
  }
  const source = packet.direction === "in" ? packet.remote : packet.local;
  const destination = packet.direction === "in" ? packet.local : packet.remote;
  if (rule.sources.length > 0 && !inAny(rule.sources, source)) return false;
  if (rule.destinations.length > 0 && !inAny(rule.destinations, destination)) return false;
  return true;
}

export function simulate(rules: FirewallRule[], smtpOpen: boolean, packet: Packet): Decision {
  const family = familyOf(packet.remote);
  if (!smtpOpen && packet.direction === "out" && packet.protocol === "tcp" && packet.port === 25) {
    return { verdict: "drop", by: "smtp_policy" };
  }
  const index = rules.findIndex((rule) => matches(rule, packet, family));
  const rule = rules[index];
  if (rule) return { verdict: rule.action, by: "rule", index };
  return { verdict: packet.direction === "in" ? defaultInbound(rules) : "accept", by: "default" };
}
