import { describe, expect, it } from "vitest";
import { MAX_FIREWALL_RULES } from "./limits";
import { familiesOf, normaliseRule, normaliseRules, parsePorts, type RuleInput, ruleKeys } from "./rules";

const ssh: RuleInput = { direction: "in", protocol: "tcp", ports: "22", action: "accept" };

describe("firewall rules", () => {
  it("normalises ports, networks and descriptions", () => {
    expect(
      normaliseRule({
        direction: "in",
        protocol: "tcp",
        ports: " 443, 8000-8100 ,22",
        sources: ["203.0.113.7/24", "2001:DB8:BEEF::1/48", "203.0.113.0/24"],
        action: "accept",
        description: "  web  ",
      }),
    ).toEqual({
      direction: "in",
      protocol: "tcp",
      ports: "443,8000-8100,22",
      sources: ["203.0.113.0/24", "2001:db8:beef::/48"],
      destinations: [],
      action: "accept",
      description: "web",
    });
    expect(normaliseRule({ ...ssh, ports: "", description: "" })).toMatchObject({
      ports: null,
      description: null,
    });
  });

  it("refuses what no packet could match, naming the field", () => {
    expect(normaliseRule({ direction: "in", protocol: "icmp", ports: "22", action: "drop" })).toMatch(
      /^ports:/,
    );
    expect(normaliseRule({ direction: "in", protocol: "any", ports: "1-2", action: "drop" })).toMatch(
      /^ports:/,
    );
    expect(normaliseRule({ ...ssh, ports: "0" })).toMatch(/not a port/);
    expect(normaliseRule({ ...ssh, ports: "90-80" })).toMatch(/not a port/);
    expect(normaliseRule({ ...ssh, ports: "65536" })).toMatch(/not a port/);
    expect(normaliseRule({ ...ssh, ports: Array.from({ length: 16 }, (_, i) => i + 1).join(",") })).toMatch(
      /at most 15/,
    );
    expect(normaliseRule({ ...ssh, sources: ["10.0.0.0/33"] })).toMatch(/^sources: "10.0.0.0\/33"/);
    expect(normaliseRule({ ...ssh, destinations: ["example.com"] })).toMatch(/^destinations:/);
    expect(normaliseRule({ ...ssh, sources: ["10.0.0.0/8"], destinations: ["2001:db8::/32"] })).toMatch(
      /share no address family/,
    );
    expect(normaliseRules([ssh, { ...ssh, ports: "x" }])).toMatch(/^rule 2: ports:/);
    expect(normaliseRules(Array.from({ length: MAX_FIREWALL_RULES + 1 }, () => ssh))).toMatch(/at most 100/);
    expect(normaliseRules(Array.from({ length: MAX_FIREWALL_RULES }, () => ssh))).toHaveLength(100);
  });

  it("reads the families a rule can match from its networks", () => {
    expect(familiesOf({ sources: [], destinations: [] })).toEqual([4, 6]);
    expect(familiesOf({ sources: ["10.0.0.0/8"], destinations: [] })).toEqual([4]);
    expect(familiesOf({ sources: ["10.0.0.0/8", "2001:db8::/32"], destinations: ["2001:db8:1::1"] })).toEqual(
      [6],
    );
    expect(parsePorts("22,80-90")).toEqual([
      { from: 22, to: 22 },
      { from: 80, to: 90 },
    ]);
  });

  it("keys a rule by what it matches, so its counts follow it wherever it moves", () => {
    const web = normaliseRule({ ...ssh, ports: "443" });
    const mail = normaliseRule({ ...ssh, ports: "25", description: "mail" });
    if (typeof web === "string" || typeof mail === "string") throw new Error("bad rule");
    const [webKey, mailKey] = ruleKeys([web, mail]);
    expect(ruleKeys([mail, web])).toEqual([mailKey, webKey]);
    // The description is not part of it; two identical rules are told apart.
    expect(ruleKeys([{ ...web, description: "https" }])).toEqual([webKey]);
    const [first, second] = ruleKeys([web, web]);
    expect(first).toBe(webKey);
    expect(second).not.toBe(first);
    expect(first).toMatch(/^[0-9a-f]{12}-0$/);
  });
});
