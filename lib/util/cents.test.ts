import { describe, expect, it } from "vitest";
import { applyBasisPoints, centsToUsd, formatUsd, usdToCents } from "./cents";

describe("money", () => {
  it("converts between cents and USD without drift", () => {
    expect(centsToUsd(2510)).toBe(25.1);
    expect(usdToCents(25.1)).toBe(2510);
    expect(usdToCents(0.29)).toBe(29);
    expect(usdToCents(2000)).toBe(200000);
  });

  it("refuses amounts finer than a cent or not finite", () => {
    expect(usdToCents(25.001)).toBeUndefined();
    expect(usdToCents(Number.NaN)).toBeUndefined();
    expect(usdToCents(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(() => centsToUsd(1.5)).toThrow(RangeError);
  });

  it("applies basis points with half-up rounding in integers", () => {
    expect(applyBasisPoints(650, 11500)).toBe(748);
    expect(applyBasisPoints(1000, 9000)).toBe(900);
    expect(applyBasisPoints(1, 5000)).toBe(1);
    expect(applyBasisPoints(1, 4999)).toBe(0);
    expect(() => applyBasisPoints(1.2, 10000)).toThrow(RangeError);
  });

  it("formats for people", () => {
    expect(formatUsd(123456)).toBe("$1,234.56");
    expect(formatUsd(5)).toBe("$0.05");
    expect(formatUsd(-250)).toBe("-$2.50");
  });
});
