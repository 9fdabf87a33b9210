import { describe, expect, it } from "vitest";
import { durationOrDash, formatDuration, formatRate } from "./format";

describe("the status page's figures in words", () => {
  it("writes times in the unit that reads best", () => {
    expect(formatDuration(0)).toBe("0 ms");
    expect(formatDuration(850.4)).toBe("850 ms");
    expect(formatDuration(1234)).toBe("1.23 s");
    expect(formatDuration(65_000)).toBe("65.0 s");
    expect(formatDuration(754_000)).toBe("12 min 34 s");
    expect(formatDuration(7_500_000)).toBe("2 h 5 min");
    expect(durationOrDash(null)).toBe("—");
  });

  it("writes a success rate rounded down, so 99.96 % never reads as 100 %", () => {
    expect(formatRate(1)).toBe("100 %");
    expect(formatRate(0.9996)).toBe("99.9 %");
    expect(formatRate(0.8)).toBe("80.0 %");
    expect(formatRate(null)).toBe("—");
  });
});
