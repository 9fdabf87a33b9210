import { describe, expect, it } from "vitest";
import { addCycle, addMonths } from "../cycle";
import { allowanceBytes, anchoredMonth, levelsReached, trafficPeriod } from "./periods";

const d = (iso: string) => new Date(iso);
const iso = (period: { start: Date; end: Date }) => [period.start.toISOString(), period.end.toISOString()];

describe("traffic periods: the calendar months of the paid period", () => {
  it("moves by calendar months on the same day and time, clamped to a month's end like billing", () => {
    expect(addMonths(d("2026-01-31T10:00:00Z"), 1).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(addMonths(d("2026-03-31T10:00:00Z"), -1).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(addMonths(d("2026-03-15T10:00:00Z"), -14).toISOString()).toBe("2025-01-15T10:00:00.000Z");
    for (const from of ["2026-01-31T10:00:00Z", "2026-05-15T23:59:59Z"]) {
      expect(addMonths(d(from), 1)).toEqual(addCycle(d(from), "monthly"));
      expect(addMonths(d(from), 12)).toEqual(addCycle(d(from), "annual"));
    }
  });

  it("finds the month around a moment from any anchor, before or after it", () => {
    const anchor = d("2026-06-10T08:00:00Z");
    expect(iso(anchoredMonth(d("2026-03-01T00:00:00Z"), anchor))).toEqual([
      "2026-02-10T08:00:00.000Z",
      "2026-03-10T08:00:00.000Z",
    ]);
    expect(iso(anchoredMonth(d("2026-06-10T08:00:00Z"), anchor))).toEqual([
      "2026-06-10T08:00:00.000Z",
      "2026-07-10T08:00:00.000Z",
    ]);
    expect(iso(anchoredMonth(d("2026-06-10T07:59:59Z"), anchor))[0]).toBe("2026-05-10T08:00:00.000Z");
  });

  it("gives a monthly server one period: from its order to its expiry", () => {
    const createdAt = d("2026-01-31T10:00:00Z");
    const server = { createdAt, expiresAt: addCycle(createdAt, "monthly") };
    expect(iso(trafficPeriod(d("2026-02-10T00:00:00Z"), server))).toEqual([
      "2026-01-31T10:00:00.000Z",
      "2026-02-28T10:00:00.000Z",
    ]);
  });

  it("gives an annual server twelve periods, one per month", () => {
    const createdAt = d("2026-01-15T00:00:00Z");
    const server = { createdAt, expiresAt: addCycle(createdAt, "annual") };
    const starts = new Set<string>();
    for (let day = 0; day < 365; day += 5) {
      starts.add(trafficPeriod(new Date(createdAt.getTime() + day * 86_400_000), server).start.toISOString());
    }
    expect(starts.size).toBe(12);
    expect([...starts][11]).toBe("2026-12-15T00:00:00.000Z");
  });

  it("keeps counting to the end of a stored period when an early renewal moves the expiry", () => {
    const createdAt = d("2026-01-31T10:00:00Z");
    const first = { start: createdAt, end: d("2026-02-28T10:00:00Z") };
    // Renewed on 20 Feb: the expiry moves to 28 Mar, whose month before starts on 28 Feb anyway; and one
    // renewed from 31 Jan would give 28 Jan boundaries: the count still runs to the stored end.
    const renewed = { createdAt, expiresAt: d("2026-03-28T10:00:00Z") };
    expect(trafficPeriod(d("2026-02-20T00:00:00Z"), renewed, first)).toBe(first);
    expect(iso(trafficPeriod(d("2026-02-28T10:00:00Z"), renewed, first))).toEqual([
      "2026-02-28T10:00:00.000Z",
      "2026-03-28T10:00:00.000Z",
    ]);
    const odd = { createdAt, expiresAt: d("2026-04-28T10:00:00Z") };
    const stored = { start: d("2026-02-28T10:00:00Z"), end: d("2026-03-31T10:00:00Z") };
    // The anchor's month around 1 Apr starts on 28 Mar, before the stored period ended: it starts at that end.
    expect(iso(trafficPeriod(d("2026-04-01T00:00:00Z"), odd, stored))).toEqual([
      "2026-03-31T10:00:00.000Z",
      "2026-04-28T10:00:00.000Z",
    ]);
  });

  it("starts a new period at a renewal after a suspension, from the renewal", () => {
    const createdAt = d("2026-01-01T00:00:00Z");
    const stored = { start: createdAt, end: d("2026-02-01T00:00:00Z") };
    // Suspended on 1 Feb, renewed on 10 Feb: paid from 10 Feb to 10 Mar.
    const renewed = { createdAt, expiresAt: d("2026-03-10T12:00:00Z") };
    expect(iso(trafficPeriod(d("2026-02-10T12:00:01Z"), renewed, stored))).toEqual([
      "2026-02-10T12:00:00.000Z",
      "2026-03-10T12:00:00.000Z",
    ]);
  });
});

describe("the allowance", () => {
  it("is the plan's terabytes in bytes, capped by the deployment when it says so", () => {
    expect(allowanceBytes("pup", undefined)).toBe(1_000_000_000_000);
    expect(allowanceBytes("fenrir", undefined)).toBe(20_000_000_000_000);
    expect(allowanceBytes("pup", 8)).toBe(8_000_000);
  });

  it("names the notice levels reached: 80 % and 100 %", () => {
    expect(levelsReached(799, 1_000)).toEqual([]);
    expect(levelsReached(800, 1_000)).toEqual([80]);
    expect(levelsReached(1_000, 1_000)).toEqual([80, 100]);
  });
});
