import { describe, expect, it } from "vitest";
import { type FirewallRule, normaliseRule, type RuleInput } from "./rules";
import { type Packet, simulate } from "./simulate";

const rule = (input: Partial<RuleInput>): FirewallRule => {
  const made = normaliseRule({ direction: "in", protocol: "tcp", action: "accept", ...input });
  if (typeof made === "string") throw new Error(made);
  return made;
};

const inbound = (port: number, remote = "203.0.113.7", local = "198.18.0.10"): Packet => ({
  direction: "in",
  protocol: "tcp",
  port,
  remote,
  local,
});

describe("simulating the firewall", () => {
  it("with no rules everything passes but outbound mail", () => {
    expect(simulate([], false, inbound(8080))).toEqual({ verdict: "accept", by: "default" });
    expect(simulate([], false, { ...inbound(25), direction: "out" })).toEqual({
      verdict: "drop",
      by: "smtp_policy",
    });
    expect(simulate([], true, { ...inbound(25), direction: "out" })).toEqual({
      verdict: "accept",
      by: "default",
    });
  });

  it("the first matching rule decides; inbound without a match is dropped once a rule exists", () => {
    const rules = [
      rule({ ports: "22", sources: ["203.0.113.0/24"] }),
      rule({ ports: "22", action: "drop" }),
      rule({ protocol: "any", sources: ["2001:db8:beef::/48"] }),
      rule({ direction: "out", protocol: "udp", ports: "53", destinations: ["192.0.2.53"], action: "drop" }),
    ];
    expect(simulate(rules, false, inbound(22))).toEqual({ verdict: "accept", by: "rule", index: 0 });
    expect(simulate(rules, false, inbound(22, "198.51.100.1"))).toEqual({
      verdict: "drop",
      by: "rule",
      index: 1,
    });
    expect(simulate(rules, false, inbound(8080))).toEqual({ verdict: "drop", by: "default" });
    const v6 = inbound(8080, "2001:db8:beef::9", "2001:db8:77:105::1");
    expect(simulate(rules, false, v6)).toEqual({ verdict: "accept", by: "rule", index: 2 });
    // The IPv6-only rule does not match IPv4, and ICMP has no port.
    expect(simulate(rules, false, { ...inbound(0), protocol: "icmp", port: null })).toEqual({
      verdict: "drop",
      by: "default",
    });
    const dns = {
      direction: "out" as const,
      protocol: "udp" as const,
      port: 53,
      remote: "192.0.2.53",
      local: "198.18.0.10",
    };
    expect(simulate(rules, false, dns)).toEqual({ verdict: "drop", by: "rule", index: 3 });
    expect(simulate(rules, false, { ...dns, remote: "192.0.2.54" })).toEqual({
      verdict: "accept",
      by: "default",
    });
  });

  it("reads sources and destinations as the packet's own source and destination, either way", () => {
    // Inbound to one address of the /64 only.
    const rules = [rule({ ports: "443", destinations: ["2001:db8:77:105::443"] })];
    expect(simulate(rules, false, inbound(443, "2001:db8::1", "2001:db8:77:105::443")).verdict).toBe(
      "accept",
    );
    expect(simulate(rules, false, inbound(443, "2001:db8::1", "2001:db8:77:105::1")).verdict).toBe("drop");
    // Outbound from one of its addresses only.
    const out = [
      rule({ direction: "out", protocol: "any", sources: ["2001:db8:77:105::99"], action: "drop" }),
    ];
    const packet = { direction: "out" as const, protocol: "tcp" as const, port: 80, remote: "2001:db8::1" };
    expect(simulate(out, false, { ...packet, local: "2001:db8:77:105::99" }).verdict).toBe("drop");
    expect(simulate(out, false, { ...packet, local: "2001:db8:77:105::1" }).verdict).toBe("accept");
  });
});
