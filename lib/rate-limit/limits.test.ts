import { describe, expect, it } from "vitest";
import { limitKeyForAddress } from "./limits";

describe("limitKeyForAddress", () => {
  it("keeps IPv4 addresses, also when written IPv4-mapped", () => {
    expect(limitKeyForAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(limitKeyForAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts an IPv6 client by its /64", () => {
    const a = limitKeyForAddress("2001:db8:1:2:aaaa::1");
    const b = limitKeyForAddress("2001:0db8:0001:0002:ffff:ffff:ffff:fffe");
    expect(a).toBe("2001:db8:1:2::/64");
    expect(b).toBe(a);
    expect(limitKeyForAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(limitKeyForAddress("2001:db8:1:3::1")).not.toBe(a);
  });

  it("passes other strings through, bounded in length", () => {
    expect(limitKeyForAddress("unknown")).toBe("unknown");
    expect(limitKeyForAddress("x".repeat(500))).toHaveLength(64);
  });
});
