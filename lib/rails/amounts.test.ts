import { describe, expect, it } from "vitest";
import { formatCoinAmount, unitsOf } from "./amounts";

describe("formatCoinAmount", () => {
  it("keeps the minimum decimals and drops nothing significant", () => {
    expect(formatCoinAmount(25_774n, 8, 8)).toBe("0.00025774");
    expect(formatCoinAmount(100_000_000n, 8, 8)).toBe("1.00000000");
    expect(formatCoinAmount(1n, 18, 0)).toBe("0.000000000000000001");
  });
});

describe("unitsOf", () => {
  it("reads a deposit coin's own decimals, and the token an x402 payment sends", () => {
    expect(unitsOf("BTC")).toEqual({ decimals: 8, displayDecimals: 8, depositCoin: "BTC" });
    expect(unitsOf("USDCBASE").decimals).toBe(6);
    expect(unitsOf("USDCBASE").depositCoin).not.toBe("USDCBASE");
  });
});
