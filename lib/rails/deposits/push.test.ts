import { describe, expect, it } from "vitest";
import { BlockTimes, NOTICE_GRACE_MS, PushMonitor, reconnectDelayMs } from "./push";

describe("a push that announces heights (bcoin, monerod, newHeads)", () => {
  it("counts the heights a notice skips as lost notices, and stays ok", () => {
    const monitor = new PushMonitor(false);
    monitor.up();
    monitor.polled(100, true, 0);
    expect(monitor.notice(101, 10)).toBe(0);
    expect(monitor.notice(104, 20)).toBe(2);
    expect(monitor.state()).toMatchObject({ status: "ok", missed: 2 });
    // A reorg announces a lower height: no gap, and the branch goes on from there.
    expect(monitor.notice(103, 30)).toBe(0);
    expect(monitor.notice(104, 40)).toBe(0);
    expect(monitor.state().missed).toBe(2);
  });

  it("a block the poll finds and no notice announces within the grace is lost: degraded until the next notice", () => {
    const monitor = new PushMonitor(false);
    monitor.up();
    monitor.polled(100, true, 0);
    monitor.polled(101, false, 1_000);
    expect(monitor.check(1_000 + NOTICE_GRACE_MS - 1)).toBe(false);
    expect(monitor.healthy()).toBe(true);
    expect(monitor.check(1_000 + NOTICE_GRACE_MS)).toBe(true);
    expect(monitor.state()).toMatchObject({ status: "degraded", missed: 1 });
    expect(monitor.healthy()).toBe(false);
    // Counted once.
    expect(monitor.check(10_000)).toBe(false);
    monitor.notice(102, 11_000);
    expect(monitor.state()).toMatchObject({ status: "ok", missed: 1 });
  });

  it("a notice that comes late, within the grace, clears the block the poll saw first", () => {
    const monitor = new PushMonitor(false);
    monitor.up();
    monitor.polled(100, true, 0);
    monitor.polled(102, false, 1_000);
    monitor.notice(101, 1_100);
    monitor.notice(102, 1_200);
    expect(monitor.check(10_000)).toBe(false);
    expect(monitor.state()).toMatchObject({ status: "ok", missed: 0 });
  });

  it("is behind while the tip a poll read is below the height announced (the node told before it could answer)", () => {
    const monitor = new PushMonitor(false);
    monitor.up();
    monitor.polled(100, true, 0);
    monitor.notice(101, 10);
    expect(monitor.behind(100)).toBe(true);
    expect(monitor.behind(101)).toBe(false);
    // A notice without a height (-blocknotify) says nothing to be behind of.
    const notify = new PushMonitor(true);
    notify.notice(undefined, 10);
    expect(notify.behind(0)).toBe(false);
  });

  it("blocks that come while the connection is down are not lost notices: the poll after it reconnects reads them", () => {
    const monitor = new PushMonitor(false);
    expect(monitor.state().status).toBe("down");
    monitor.up();
    monitor.polled(100, true, 0);
    monitor.down();
    expect(monitor.state().status).toBe("down");
    monitor.polled(103, false, 1_000);
    expect(monitor.check(10_000)).toBe(false);
    monitor.up();
    monitor.polled(105, true, 11_000);
    monitor.notice(106, 12_000);
    expect(monitor.state()).toMatchObject({ status: "ok", missed: 0 });
  });
});

describe("a push that only says a block came (-blocknotify)", () => {
  it("waits for its first notice; the poll a notice wakes announces the tip it reads", () => {
    const monitor = new PushMonitor(true);
    monitor.polled(100, false, 0);
    expect(monitor.state()).toEqual({ status: "waiting", missed: 0, lastNoticeAt: null });
    expect(monitor.healthy()).toBe(false);
    monitor.notice(undefined, 5_000);
    monitor.polled(101, true, 5_010);
    expect(monitor.state()).toEqual({
      status: "ok",
      missed: 0,
      lastNoticeAt: new Date(5_000).toISOString(),
    });
    monitor.polled(101, false, 9_000);
    expect(monitor.check(20_000)).toBe(false);
  });

  it("a block found by the timer's poll with no notice since is lost; notices after it make the push ok again", () => {
    const monitor = new PushMonitor(true);
    monitor.polled(100, false, 0);
    monitor.notice(undefined, 1_000);
    monitor.polled(101, true, 1_010);
    monitor.polled(102, false, 2_000);
    expect(monitor.check(2_000 + NOTICE_GRACE_MS)).toBe(true);
    expect(monitor.state()).toMatchObject({ status: "degraded", missed: 1 });
    monitor.notice(undefined, 9_000);
    monitor.polled(103, true, 9_010);
    expect(monitor.state()).toMatchObject({ status: "ok", missed: 1 });
  });

  it("a notice that came while the poll it woke was queued behind the timer's clears the block", () => {
    const monitor = new PushMonitor(true);
    monitor.polled(100, false, 0);
    monitor.polled(101, false, 1_000);
    monitor.notice(undefined, 1_005);
    expect(monitor.check(1_000 + NOTICE_GRACE_MS)).toBe(false);
    expect(monitor.state().missed).toBe(0);
  });
});

describe("helpers", () => {
  it("keeps the last block times by height, forgetting the oldest", () => {
    const times = new BlockTimes(2);
    times.set(1, new Date(1_000));
    times.set(2, new Date(2_000));
    times.set(3, new Date(3_000));
    expect(times.get(1)).toBeUndefined();
    expect(times.get(3)).toEqual(new Date(3_000));
  });

  it("reconnects after 1 s, doubling, at most 30 s", () => {
    expect([0, 1, 2, 4, 5, 9].map(reconnectDelayMs)).toEqual([1_000, 2_000, 4_000, 16_000, 30_000, 30_000]);
  });
});
