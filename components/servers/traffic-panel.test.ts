import { describe, expect, it } from "vitest";
import { trafficNotice } from "./traffic-panel";

/** This period's traffic as the API shows it: a 1 TB allowance, nothing marked yet. */
const traffic = {
  period_start: "2026-05-03T10:00:00.000Z",
  period_end: "2026-06-03T10:00:00.000Z",
  allowance_bytes: 1_000_000_000_000,
  outbound_bytes: 10_000_000,
  inbound_bytes: 20_000_000,
  used_percent: 0,
  reached_80_percent_at: null,
  reached_100_percent_at: null,
  slowed_to_mbps: null,
};
const over = {
  ...traffic,
  outbound_bytes: 1_000_500_000_000,
  used_percent: 100.05,
  reached_80_percent_at: "2026-05-20T08:30:00.000Z",
  reached_100_percent_at: "2026-05-25T17:45:00.000Z",
};

describe("the traffic bar's notice", () => {
  it("says nothing below 80 %, and warns past it", () => {
    expect(trafficNotice(traffic)).toBeNull();
    expect(trafficNotice({ ...traffic, reached_80_percent_at: "2026-05-20T08:30:00.000Z" })).toEqual({
      tone: "warning",
      testId: "traffic-notice",
      text: "80 % of this period's allowance was used on 2026-05-20 08:30 UTC. Past 100 % the network is slowed until 2026-06-03 10:00 UTC.",
    });
  });

  it("past 100 %, says the network is slowed only once the host has slowed it", () => {
    expect(trafficNotice({ ...over, slowed_to_mbps: 10 })).toEqual({
      tone: "error",
      testId: "traffic-slowed",
      text: "The allowance was used up on 2026-05-25 17:45 UTC: the network is slowed to 10 Mbit/s until 2026-06-03 10:00 UTC. The server keeps running.",
    });
    // The host could not shape yet (or the machine is stopped): the slowdown is pending, not in place.
    const pending = trafficNotice(over);
    expect(pending).toMatchObject({ tone: "error", testId: "traffic-notice" });
    expect(pending?.text).toBe(
      "The allowance was used up on 2026-05-25 17:45 UTC. The slowdown until 2026-06-03 10:00 UTC is pending: " +
        "the host has not applied it yet (it is tried again, and a stopped machine is slowed when it starts), " +
        "so for now the network runs at full speed. The server keeps running.",
    );
    expect(pending?.text).not.toMatch(/is (being )?slowed (to|until)/);
  });
});
