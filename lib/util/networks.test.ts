import { describe, expect, it } from "vitest";
import { networksMatcher, networkWithin, parseNetworks, readNetwork } from "./networks";

const network = (text: string) => {
  const reading = readNetwork(text);
  if (!("network" in reading)) throw new Error(reading.problem);
  return reading.network;
};

describe("client networks", () => {
  it("reads CIDRs and single addresses of both families into one spelling", () => {
    expect(network("203.0.113.0/24")).toBe("203.0.113.0/24");
    expect(network(" 198.51.100.7 ")).toBe("198.51.100.7/32");
    expect(network("2001:0db8:0000::/48")).toBe("2001:db8::/48");
    expect(network("2001:db8::1")).toBe("2001:db8::1/128");
    expect(network("::ffff:192.0.2.1")).toBe("192.0.2.1/32");
    expect(network("0.0.0.0/0")).toBe("0.0.0.0/0");
    expect(network("::/0")).toBe("::/0");
  });

  it.each([
    ["10.1.2.3/8", /host bits set: the network is 10\.0\.0\.0\/8/],
    ["2001:db8::1/48", /host bits set/],
    ["10.0.0.0/33", /prefix length outside 0-32/],
    ["2001:db8::/129", /outside 0-128/],
    ["10.0.0.0/-1", /outside/],
    ["10.0.0.0/", /outside/],
    ["10.1", /not an IPv4 or IPv6/],
    ["example.com", /not an IPv4 or IPv6/],
    ["fe80::1%eth0", /not an IPv4 or IPv6/],
    ["10.0.0.0/8/8", /not an IPv4 or IPv6/],
    ["", /not an IPv4 or IPv6/],
  ])("refuses %j, saying why", (text, why) => {
    const reading = readNetwork(text);
    expect("problem" in reading && reading.problem).toMatch(why);
  });

  it("matches client addresses of either family, IPv4-mapped ones as IPv4, and nothing unparsable", () => {
    const allowed = networksMatcher(["203.0.113.0/24", "2001:db8:5::/48"]);
    expect(allowed("203.0.113.77")).toBe(true);
    expect(allowed("::ffff:203.0.113.77")).toBe(true);
    expect(allowed("203.0.114.1")).toBe(false);
    expect(allowed("2001:db8:5:ffff::9")).toBe(true);
    expect(allowed("2001:db8:6::9")).toBe(false);
    expect(allowed("fe80::1%eth0")).toBe(false);
    expect(allowed("unknown")).toBe(false);
    expect(allowed("2001:db8:5::/64")).toBe(false);
    // Asked again, it answers the same (from what it remembers).
    expect(allowed("203.0.113.77")).toBe(true);
    expect(allowed("203.0.114.1")).toBe(false);
    expect(networksMatcher(["203.0.113.0/24", "2001:db8:5::/48"])).toBe(allowed);
    expect(networksMatcher(["0.0.0.0/0"])("198.51.100.1")).toBe(true);
    // IPv4 addresses sit in IPv6's space as ::ffff:a.b.c.d: a prefix wide enough to hold that holds them too.
    expect(networksMatcher(["::/0"])("198.51.100.1")).toBe(true);
    expect(networksMatcher(["2000::/3"])("198.51.100.1")).toBe(false);
    expect(networksMatcher(["198.51.100.7/32"])("198.51.100.7")).toBe(true);
  });

  it("tells whether one network lies inside another", () => {
    const [wide, narrow, beside, v6] = parseNetworks([
      "10.0.0.0/8",
      "10.20.0.0/16",
      "11.0.0.0/16",
      "2001:db8::/32",
    ]) as [never, never, never, never];
    expect(networkWithin(narrow, wide)).toBe(true);
    expect(networkWithin(wide, wide)).toBe(true);
    expect(networkWithin(wide, narrow)).toBe(false);
    expect(networkWithin(beside, wide)).toBe(false);
    expect(networkWithin(v6, wide)).toBe(false);
  });
});
