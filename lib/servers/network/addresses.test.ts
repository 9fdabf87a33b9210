import { describe, expect, it } from "vitest";
import {
  canonicalAddress,
  contains,
  defaultPtrName,
  linkLocalOf,
  nthSlash64,
  parseNetwork,
  reverseName,
  reverseZone,
  serverIpv6Address,
  slash64Count,
} from "./addresses";

describe("addresses", () => {
  it("reads addresses and networks canonically, clearing host bits, and refuses what is not one", () => {
    expect(canonicalAddress("2001:DB8:0:0:0:0:0:1")).toBe("2001:db8::1");
    expect(canonicalAddress("198.18.0.10")).toBe("198.18.0.10");
    for (const bad of ["198.18.0", "01.2.3.4", "fe80::1%eth0", "host.example", ""]) {
      expect(canonicalAddress(bad)).toBeUndefined();
    }
    expect(parseNetwork("10.1.2.3/8")).toEqual({ address: "10.0.0.0", length: 8, family: 4 });
    expect(parseNetwork("2001:db8:77:1ff::5/56")).toEqual({
      address: "2001:db8:77:100::",
      length: 56,
      family: 6,
    });
    expect(parseNetwork("192.0.2.1")).toEqual({ address: "192.0.2.1", length: 32, family: 4 });
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/8/1", "10.0.0.0/x"])
      expect(parseNetwork(bad)).toBeUndefined();
    const prefix = parseNetwork("2001:db8:77:105::/64");
    expect(prefix && contains(prefix, "2001:db8:77:105:abcd::1")).toBe(true);
    expect(prefix && contains(prefix, "2001:db8:77:106::1")).toBe(false);
    expect(prefix && contains(prefix, "198.18.0.1")).toBe(false);
  });

  it("hands out the /64s of a host prefix in order, each server at its ::1", () => {
    const pool = parseNetwork("2001:db8:77:100::/56");
    if (!pool) throw new Error("no pool");
    expect(slash64Count(pool)).toBe(256);
    expect(nthSlash64(pool, 0)).toBe("2001:db8:77:100::/64");
    expect(nthSlash64(pool, 5)).toBe("2001:db8:77:105::/64");
    expect(nthSlash64(pool, 255)).toBe("2001:db8:77:1ff::/64");
    expect(() => nthSlash64(pool, 256)).toThrow(RangeError);
    // A /48 carries into the next 16-bit group.
    const wide = parseNetwork("2001:db8:100::/48");
    if (!wide) throw new Error("no pool");
    expect(nthSlash64(wide, 0x1_02)).toBe("2001:db8:100:102::/64");
    expect(serverIpv6Address("2001:db8:77:105::/64")).toBe("2001:db8:77:105::1");
  });

  it("names addresses in reverse DNS, their zones and their generated names", () => {
    expect(reverseName("198.18.0.10")).toBe("10.0.18.198.in-addr.arpa");
    expect(reverseZone("198.18.0.10")).toBe("0.18.198.in-addr.arpa");
    const v6 = "2001:db8:77:105::1";
    expect(reverseName(v6)).toBe("1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.5.0.1.0.7.7.0.0.8.b.d.0.1.0.0.2.ip6.arpa");
    // A /56 host prefix: its zone is 14 nibbles deep; a /50 rounds down to 12.
    expect(reverseZone(v6, 56)).toBe("1.0.7.7.0.0.8.b.d.0.1.0.0.2.ip6.arpa");
    expect(reverseZone(v6, 50)).toBe("7.7.0.0.8.b.d.0.1.0.0.2.ip6.arpa");
    expect(defaultPtrName("198.18.0.10", "rdns.example.net")).toBe("198-18-0-10.rdns.example.net");
    expect(defaultPtrName(v6, "rdns.example.net")).toBe("2001-db8-77-105--1.rdns.example.net");
  });

  it("derives a card's EUI-64 link-local address from its MAC", () => {
    expect(linkLocalOf("52:54:00:00:00:0c")).toBe("fe80::5054:ff:fe00:c");
    expect(linkLocalOf("02:fc:00:00:00:01")).toBe("fe80::fc:ff:fe00:1");
    expect(() => linkLocalOf("52:54:00:00:00")).toThrow(RangeError);
  });
});
