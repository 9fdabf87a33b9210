import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import {
  consoleSessions,
  depositPayments,
  notificationAttempts,
  notificationDeliveries,
  notificationEndpoints,
  notificationEvents,
  orderOutcomes,
  topups,
} from "@/lib/db/schema";
import { createAccount, insertServer, openMemoryDatabase } from "@/lib/testing/memory-db";
import { measureStatusFigures, SERIES_HOURS, type StatusFigures } from "./figures";

/**
 * A fixture of orders, credits, console sessions and webhook deliveries around AT, and the figures worked out
 * by hand. Percentiles are nearest-rank: of n values in order, pX is the one at position ceil(X/100 * n).
 */
const AT = new Date("2026-06-10T12:30:00Z");
const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(AT.getTime() - ms);
const plus = (date: Date, ms: number) => new Date(date.getTime() + ms);

describe("the status figures, from a fixture worked out by hand (the real schema)", () => {
  let db: Database;
  let close: () => Promise<void>;
  let figures: StatusFigures;

  beforeAll(async () => {
    ({ db, close } = await openMemoryDatabase());
    await insertOrders();
    await insertCredits();
    await insertConsoles();
    await insertWebhooks();
    figures = await measureStatusFigures(db, AT);
  }, 120_000);
  afterAll(async () => close());

  /**
   * nl / Debian 13: in the last 24 hours four orders went active in 40, 50, 60 and 70 s (SSH answering at 38,
   * 47, 58 and 66 s), all finishing between 10:10 and 10:40, and one failed; three days ago one went active in
   * 300 s (SSH at 295 s) and one failed; eight days ago one (10 s) is outside every window.
   * fr / Ubuntu 24.04: one simulated build, active in 90 s with no SSH server to answer.
   */
  async function insertOrders() {
    const order = (
      location: string,
      os: string,
      finishedAt: Date,
      toActiveS: number | null,
      toSshS: number | null,
    ) => {
      const orderedAt = plus(finishedAt, -(toActiveS ?? 120) * SECOND);
      return {
        location,
        os,
        orderedAt,
        finishedAt,
        succeeded: toActiveS !== null,
        sshAnsweredAt: toSshS === null ? null : plus(orderedAt, toSshS * SECOND),
      };
    };
    const tenPast = ago(2 * HOUR + 20 * 60_000);
    await db
      .insert(orderOutcomes)
      .values([
        order("nl", "debian-13", tenPast, 40, 38),
        order("nl", "debian-13", plus(tenPast, 10 * 60_000), 50, 47),
        order("nl", "debian-13", plus(tenPast, 20 * 60_000), 60, 58),
        order("nl", "debian-13", plus(tenPast, 30 * 60_000), 70, 66),
        order("nl", "debian-13", ago(5 * HOUR), null, null),
        order("nl", "debian-13", ago(3 * DAY), 300, 295),
        order("nl", "debian-13", ago(3 * DAY + HOUR), null, null),
        order("nl", "debian-13", ago(8 * DAY), 10, 9),
        order("fr", "ubuntu-24.04", ago(HOUR + 15 * 60_000), 90, null),
      ]);
  }

  /**
   * BTC, credited in the last 24 hours 0.4, 0.8 and 1.2 s after the confirming sighting, and 5 s three days
   * ago; one credited before sightings were recorded (none) and one x402 top-up do not count. ETH: 2 s.
   */
  async function insertCredits() {
    const accountId = await createAccount(db);
    const topup = async (ref: string, coin: string, method: "deposit" | "x402") => {
      const [row] = await db
        .insert(topups)
        .values({
          ref,
          accountId,
          method,
          coin,
          network: coin === "BTC" ? "bitcoin" : "ethereum",
          amountCents: 5000,
          depositAddress: `addr-${ref}`,
          depositUnits: "100000",
          rateUsd: "50000",
          rateSource: "test",
          confirmationsRequired: 2,
          createdAt: ago(4 * DAY),
          status: "completed",
        })
        .returning({ id: topups.id });
      return row?.id ?? 0;
    };
    const btc = await topup("status-btc", "BTC", "deposit");
    const eth = await topup("status-eth", "ETH", "deposit");
    const x402 = await topup("status-x402", "BTC", "x402");
    let tx = 0;
    const payment = (topupId: number, confirmedAt: Date, afterSightingMs: number | null) => ({
      topupId,
      network: "test",
      txHash: `status-tx-${++tx}`,
      logIndex: -1,
      amountUnits: "1000",
      confirmations: 2,
      seenAt: ago(5 * DAY),
      confirmedAt,
      confirmingBlockAt: afterSightingMs === null ? null : plus(confirmedAt, -afterSightingMs),
    });
    await db
      .insert(depositPayments)
      .values([
        payment(btc, ago(HOUR), 400),
        payment(btc, ago(2 * HOUR), 1200),
        payment(btc, ago(3 * HOUR), 800),
        payment(btc, ago(3 * DAY), 5000),
        payment(btc, ago(4 * HOUR), null),
        payment(x402, ago(HOUR), 100),
        payment(eth, ago(6 * HOUR), 2000),
      ]);
  }

  /**
   * In the last 24 hours the machine's first byte came 0.9 and 1.5 s after the ticket, one session closed on
   * a host error without any, one found its machine stopped and one ticket was never used (neither counts);
   * two days ago one took 3 s.
   */
  async function insertConsoles() {
    const accountId = await createAccount(db);
    const server = await insertServer(db, accountId, { status: "active", powerState: "running" });
    let ticket = 0;
    const session = (
      requestedAt: Date,
      firstByteMs: number | null,
      closeReason: string | null,
      opened = true,
    ) => ({
      accountId,
      serverId: server.id,
      ticketHash: `status-ticket-${++ticket}`,
      ticketExpiresAt: plus(requestedAt, 30 * SECOND),
      requestedAt,
      requestedFrom: "10.0.0.1",
      openedAt: opened ? plus(requestedAt, 300) : null,
      firstByteAt: firstByteMs === null ? null : plus(requestedAt, firstByteMs),
      closedAt: closeReason === null ? null : plus(requestedAt, 10 * SECOND),
      closeReason,
    });
    await db
      .insert(consoleSessions)
      .values([
        session(ago(2 * HOUR), 900, "ended"),
        session(ago(3 * HOUR), 1500, null),
        session(ago(4 * HOUR), null, "host_error"),
        session(ago(5 * HOUR), null, "machine_stopped"),
        session(ago(6 * HOUR), null, "ticket_expired", false),
        session(ago(2 * DAY), 3000, "idle"),
      ]);
  }

  /**
   * Webhooks, in the last 24 hours: delivered at the first attempt (sent 0.1 s after the commit, answered in
   * 0.15 s: 250 ms), delivered at the second (sent at 30 s, answered in 0.2 s: 30,200 ms), failed for good;
   * five days ago delivered in 400 ms. Not counted: one delivered only by a redelivery asked by hand, one to an
   * ntfy topic, one still pending.
   */
  async function insertWebhooks() {
    const accountId = await createAccount(db);
    const endpoint = async (kind: "webhook" | "ntfy") => {
      const [row] = await db
        .insert(notificationEndpoints)
        .values({ accountId, kind, url: `https://example.test/${kind}`, eventTypes: ["server.active"] })
        .returning({ id: notificationEndpoints.id });
      return row?.id ?? 0;
    };
    const webhook = await endpoint("webhook");
    const ntfy = await endpoint("ntfy");
    let event = 0;
    const deliver = async (
      endpointId: number,
      occurredAt: Date,
      state: "delivered" | "failed" | "pending",
      attempts: { sentAfterMs: number; durationMs: number; succeeded: boolean; manual?: boolean }[],
    ) => {
      const [row] = await db
        .insert(notificationEvents)
        .values({
          publicId: `msg_status_${++event}`,
          accountId,
          type: "server.active",
          payload: "{}",
          occurredAt,
        })
        .returning({ id: notificationEvents.id });
      const [delivery] = await db
        .insert(notificationDeliveries)
        .values({
          eventId: row?.id ?? 0,
          endpointId,
          state,
          attempts: attempts.length,
          createdAt: occurredAt,
        })
        .returning({ id: notificationDeliveries.id });
      for (const [i, attempt] of attempts.entries()) {
        await db.insert(notificationAttempts).values({
          deliveryId: delivery?.id ?? 0,
          number: i + 1,
          manual: attempt.manual ?? false,
          queuedAt: occurredAt,
          sentAt: plus(occurredAt, attempt.sentAfterMs),
          durationMs: attempt.durationMs,
          responseStatus: attempt.succeeded ? 200 : 500,
          succeeded: attempt.succeeded,
        });
      }
    };
    await deliver(webhook, ago(HOUR), "delivered", [{ sentAfterMs: 100, durationMs: 150, succeeded: true }]);
    await deliver(webhook, ago(2 * HOUR), "delivered", [
      { sentAfterMs: 50, durationMs: 80, succeeded: false },
      { sentAfterMs: 30_000, durationMs: 200, succeeded: true },
    ]);
    await deliver(webhook, ago(3 * HOUR), "failed", [{ sentAfterMs: 50, durationMs: 80, succeeded: false }]);
    await deliver(webhook, ago(5 * DAY), "delivered", [
      { sentAfterMs: 300, durationMs: 100, succeeded: true },
    ]);
    await deliver(webhook, ago(4 * HOUR), "delivered", [
      { sentAfterMs: 50, durationMs: 80, succeeded: false },
      { sentAfterMs: 3_600_000, durationMs: 100, succeeded: true, manual: true },
    ]);
    await deliver(ntfy, ago(HOUR), "delivered", [{ sentAfterMs: 20, durationMs: 20, succeeded: true }]);
    await deliver(webhook, ago(10 * 60_000), "pending", []);
  }

  it("orders: success rate and times to active and to SSH per location and image, 24 hours and 7 days", () => {
    const nl = figures.orders.get("nl debian-13");
    // 24 h: 5 ended, 4 active; [40, 50, 60, 70] s: p50 at position 2, p95 and p99 at position 4.
    expect(nl?.day).toEqual({
      total: 5,
      succeeded: 4,
      timings: {
        to_active: { n: 4, p50: 50_000, p95: 70_000, p99: 70_000 },
        to_ssh: { n: 4, p50: 47_000, p95: 66_000, p99: 66_000 },
      },
    });
    // 7 days: 7 ended, 5 active; [40, 50, 60, 70, 300] s: p50 at position 3, p95 (4.75) and p99 at 5.
    expect(nl?.week).toEqual({
      total: 7,
      succeeded: 5,
      timings: {
        to_active: { n: 5, p50: 60_000, p95: 300_000, p99: 300_000 },
        to_ssh: { n: 5, p50: 58_000, p95: 295_000, p99: 295_000 },
      },
    });
    // A simulated build has no SSH server: measured to active only.
    expect(figures.orders.get("fr ubuntu-24.04")?.day).toEqual({
      total: 1,
      succeeded: 1,
      timings: {
        to_active: { n: 1, p50: 90_000, p95: 90_000, p99: 90_000 },
        to_ssh: { n: 0, p50: null, p95: null, p99: null },
      },
    });
    expect([...figures.orders.keys()].sort()).toEqual(["fr ubuntu-24.04", "nl debian-13"]);
  });

  it("credits: from the confirming sighting to the commit, per coin; x402 and unrecorded sightings left out", () => {
    // BTC 24 h: [400, 800, 1200] ms; 7 days: [400, 800, 1200, 5000] ms (p95 at position ceil(3.8) = 4).
    expect(figures.credits.get("BTC")?.day).toEqual({
      total: 3,
      succeeded: 3,
      timings: { to_credit: { n: 3, p50: 800, p95: 1200, p99: 1200 } },
    });
    expect(figures.credits.get("BTC")?.week.timings.to_credit).toEqual({
      n: 4,
      p50: 800,
      p95: 5000,
      p99: 5000,
    });
    expect(figures.credits.get("ETH")?.week.timings.to_credit).toEqual({
      n: 1,
      p50: 2000,
      p95: 2000,
      p99: 2000,
    });
  });

  it("consoles: ticket to first byte, and sessions that never got one", () => {
    // 24 h: 3 sessions count (2 with a first byte at 900 and 1500 ms); 7 days: 4, with [900, 1500, 3000].
    expect(figures.consoles).toEqual({
      day: { total: 3, succeeded: 2, timings: { to_first_byte: { n: 2, p50: 900, p95: 1500, p99: 1500 } } },
      week: { total: 4, succeeded: 3, timings: { to_first_byte: { n: 3, p50: 1500, p95: 3000, p99: 3000 } } },
    });
  });

  it("webhooks: commit to the receiver's answer, retries included", () => {
    // 24 h: 3 settled, 2 delivered in [250, 30200] ms; 7 days: 4 settled, [250, 400, 30200] ms.
    expect(figures.webhooks).toEqual({
      day: { total: 3, succeeded: 2, timings: { to_delivery: { n: 2, p50: 250, p95: 30_200, p99: 30_200 } } },
      week: {
        total: 4,
        succeeded: 3,
        timings: { to_delivery: { n: 3, p50: 400, p95: 30_200, p99: 30_200 } },
      },
    });
  });

  it("charts: hourly p50 and p95 over the last 168 hours, empty hours null", () => {
    const { hours, toActive, toCredit } = figures.series;
    expect(hours).toHaveLength(SERIES_HOURS);
    // The last bucket is the hour AT is in (12:00); the four nl orders ended in the 10:00 one.
    expect(new Date(hours[SERIES_HOURS - 1] ?? 0).toISOString()).toBe("2026-06-10T12:00:00.000Z");
    expect(toActive.p50[SERIES_HOURS - 3]).toBe(50_000);
    expect(toActive.p95[SERIES_HOURS - 3]).toBe(70_000);
    // The fr order alone in the 11:00 one.
    expect(toActive.p50[SERIES_HOURS - 2]).toBe(90_000);
    expect(toActive.p50[SERIES_HOURS - 1]).toBeNull();
    // The BTC credit at 11:30 (400 ms) and the x402 one that does not count.
    expect(toCredit.p50[SERIES_HOURS - 2]).toBe(400);
    expect(toActive.p50.filter((value) => value !== null)).toHaveLength(3);
  });
});
