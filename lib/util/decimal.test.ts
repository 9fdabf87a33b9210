import { formatUnits, parseUnits } from "viem";
import { describe, expect, it } from "vitest";
import { decimalToUnits, unitsToDecimal } from "./decimal";

describe("decimal strings and smallest units", () => {
  it("reads a decimal string exactly, at the coin's precision", () => {
    expect(decimalToUnits("0.0005", 8)).toBe(50_000n);
    expect(decimalToUnits("12", 6)).toBe(12_000_000n);
    expect(decimalToUnits("1.50", 1)).toBe(15n);
    expect(decimalToUnits("0", 0)).toBe(0n);
  });

  it("refuses more significant decimals than the coin has, and anything not a decimal string", () => {
    expect(decimalToUnits("0.123", 2)).toBeUndefined();
    for (const bad of ["", "-1", "1.", ".5", "1e3", "0x10", " 1"])
      expect(decimalToUnits(bad, 8)).toBeUndefined();
  });

  it("writes units back without trailing zeros, negative ones too", () => {
    expect(unitsToDecimal(30n, 4)).toBe("0.003");
    expect(unitsToDecimal(12_000_000n, 6)).toBe("12");
    expect(unitsToDecimal(0n, 8)).toBe("0");
    expect(unitsToDecimal(-150n, 2)).toBe("-1.5");
    expect(unitsToDecimal(7n, 0)).toBe("7");
  });

  it("agrees with viem's parseUnits and formatUnits on every value it accepts", () => {
    for (const [text, decimals] of [
      ["0.00000001", 8],
      ["123456789.123456789012345678", 18],
      ["1000000", 6],
      ["0.1", 12],
    ] as const) {
      const units = decimalToUnits(text, decimals);
      expect(units).toBe(parseUnits(text, decimals));
      expect(unitsToDecimal(units as bigint, decimals)).toBe(
        formatUnits(parseUnits(text, decimals), decimals),
      );
    }
  });
});
