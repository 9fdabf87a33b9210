import { describe, expect, it } from "vitest";
import { InputPacer } from "./pacing";

describe("pacing a console's input", () => {
  it("lets a burst through at once, then so many bytes a second", () => {
    let now = 0;
    const pacer = new InputPacer(1_000, 4_000, () => now);
    expect(pacer.take(3_000)).toBe(0);
    expect(pacer.take(1_000)).toBe(0);
    // Empty: 500 bytes wait half a second.
    expect(pacer.take(500)).toBe(500);
    now += 500;
    expect(pacer.take(500)).toBe(0);
    // Idle time refills no more than the burst.
    now += 60_000;
    expect(pacer.take(4_000)).toBe(0);
    expect(pacer.take(1)).toBeGreaterThan(0);
  });

  it("lets a frame larger than the burst through once the bucket is full", () => {
    let now = 0;
    const pacer = new InputPacer(1_000, 2_000, () => now);
    expect(pacer.take(1_500)).toBe(0);
    expect(pacer.take(16_000)).toBe(1_500);
    now += 1_500;
    expect(pacer.take(16_000)).toBe(0);
  });
});
