import { describe, expect, it } from "vitest";
import { nextRun, rotation } from "./schedule-rules";

const at = (iso: string) => new Date(iso);

describe("snapshot schedules", () => {
  it("run daily at the hour (UTC) after now, never at now", () => {
    const daily = { frequency: "daily" as const, hour: 3, weekday: null };
    expect(nextRun(daily, at("2027-01-10T02:59:59Z"))).toEqual(at("2027-01-10T03:00:00Z"));
    expect(nextRun(daily, at("2027-01-10T03:00:00Z"))).toEqual(at("2027-01-11T03:00:00Z"));
    expect(nextRun(daily, at("2027-12-31T23:00:00Z"))).toEqual(at("2028-01-01T03:00:00Z"));
  });

  it("run weekly on the ISO weekday at the hour", () => {
    // 2027-01-10 is a Sunday (7); Wednesday is 3.
    const wednesday = { frequency: "weekly" as const, hour: 22, weekday: 3 };
    expect(nextRun(wednesday, at("2027-01-10T12:00:00Z"))).toEqual(at("2027-01-13T22:00:00Z"));
    expect(nextRun(wednesday, at("2027-01-13T21:00:00Z"))).toEqual(at("2027-01-13T22:00:00Z"));
    expect(nextRun(wednesday, at("2027-01-13T22:00:00Z"))).toEqual(at("2027-01-20T22:00:00Z"));
    const sunday = { frequency: "weekly" as const, hour: 0, weekday: 7 };
    expect(nextRun(sunday, at("2027-01-10T00:00:00Z"))).toEqual(at("2027-01-17T00:00:00Z"));
  });

  it("make room by deleting the oldest automatic snapshots only; a limit full of others fails the run", () => {
    const snap = (id: number, kind: "manual" | "automatic" | "reinstall", state = "available" as const) => ({
      id,
      kind,
      state,
      createdAt: at(`2027-01-0${id}T03:00:00Z`),
    });
    const kept = [snap(1, "manual"), snap(2, "automatic"), snap(3, "automatic")];
    expect(rotation(kept, 4)).toEqual({ remove: [], full: false });
    expect(rotation(kept, 3)).toEqual({ remove: [kept[1]], full: false });
    expect(rotation(kept, 2)).toEqual({ remove: [kept[1], kept[2]], full: false });
    expect(
      rotation([snap(1, "manual"), snap(2, "reinstall"), snap(3, "automatic", "failed" as never)], 2),
    ).toEqual({
      remove: [],
      full: true,
    });
  });
});
