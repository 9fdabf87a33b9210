import { describe, expect, it } from "vitest";
import { LOCATIONS } from "@/lib/catalog/catalog";
import { HOSTS_PER_LOCATION, poolAddress, poolOf } from "./ip-pool";

describe("IP pools", () => {
  it("gives each location its own /20 in 100.64.0.0/10", () => {
    expect(poolAddress("nl", 1)).toBe("100.64.0.1");
    expect(poolAddress("nl", HOSTS_PER_LOCATION)).toBe("100.64.15.254");
    expect(poolAddress("fr", 1)).toBe("100.64.16.1");
    const seen = new Set<string>();
    for (const location of LOCATIONS) {
      for (const host of [1, 2, 255, 256, HOSTS_PER_LOCATION]) {
        const address = poolAddress(location.id, host);
        expect(seen.has(address)).toBe(false);
        seen.add(address);
        expect(poolOf(address)).toBe(location.id);
      }
    }
  });

  it("refuses hosts outside the block and unknown locations", () => {
    expect(() => poolAddress("nl", 0)).toThrow();
    expect(() => poolAddress("nl", HOSTS_PER_LOCATION + 1)).toThrow();
    expect(() => poolAddress("xx", 1)).toThrow();
    expect(poolOf("8.8.8.8")).toBeUndefined();
  });
});
