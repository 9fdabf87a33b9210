import { describe, expect, it } from "vitest";
import { addCycle } from "./cycle";

const at = (iso: string) => new Date(iso);

describe("addCycle", () => {
  it("adds one calendar month or year, keeping the time of day", () => {
    expect(addCycle(at("2026-11-22T10:30:00Z"), "monthly").toISOString()).toBe("2026-12-22T10:30:00.000Z");
    expect(addCycle(at("2026-12-15T00:00:00Z"), "monthly").toISOString()).toBe("2027-01-15T00:00:00.000Z");
    expect(addCycle(at("2026-11-22T10:30:00Z"), "annual").toISOString()).toBe("2027-11-22T10:30:00.000Z");
  });

  it("clamps to the end of a shorter month", () => {
    expect(addCycle(at("2027-01-31T12:00:00Z"), "monthly").toISOString()).toBe("2027-02-28T12:00:00.000Z");
    expect(addCycle(at("2028-01-31T12:00:00Z"), "monthly").toISOString()).toBe("2028-02-29T12:00:00.000Z");
    expect(addCycle(at("2028-02-29T12:00:00Z"), "annual").toISOString()).toBe("2029-02-28T12:00:00.000Z");
  });
});
