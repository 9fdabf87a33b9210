import { describe, expect, it } from "vitest";
import { formatBitRate, formatBytes, formatPercent, latestAndPeak } from "./usage-format";

describe("usage figures on the dashboard", () => {
  it("reads bytes in decimal units, as allowances are sold", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1_234_567)).toBe("1.23 MB");
    expect(formatBytes(1_000_000_000_000)).toBe("1.00 TB");
    expect(formatBytes(20_000_000_000_000)).toBe("20.0 TB");
  });

  it("reads network rates in bits per second", () => {
    expect(formatBitRate(1_250_000)).toBe("10.0 Mbit/s");
    expect(formatBitRate(100)).toBe("800 bit/s");
    expect(formatPercent(12.345)).toBe("12.3 %");
  });

  it("finds the latest measured value and the peak, skipping gaps", () => {
    expect(latestAndPeak([null, 3, 9, null, 4, null])).toEqual({ latest: 4, peak: 9 });
    expect(latestAndPeak([null, null])).toBeUndefined();
  });
});
