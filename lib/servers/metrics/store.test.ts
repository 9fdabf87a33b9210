import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { serverMetricState, serverMetrics, servers, serverTraffic } from "@/lib/db/schema";
import { createAccount, insertServer, openMemoryDatabase, scratchConfigEnv } from "@/lib/testing/memory-db";
import type { DomainCounters, DomainReading } from "./domstats";
import { readServerMetrics } from "./read";
import { pruneTerminated } from "./sampler";
import type { SampledServer } from "./source";
import { pruneServers, recordReadings, recordSlowdown } from "./store";
import { ROWS_PER_SERVER_BOUND, TIERS } from "./tiers";
import { presentTraffic } from "./traffic";

const restoreEnv = scratchConfigEnv();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ORDERED = new Date("2026-03-01T00:00:00Z");
/** A small allowance for the tests: 1 MB (the plans' are terabytes). */
const CAP_MB = 1;

const counters = (
  cpuMs: number,
  rxBytes: number,
  txBytes: number,
  memoryUsedKib?: number,
): DomainCounters => ({
  cpuMs,
  rxBytes,
  txBytes,
  readBytes: rxBytes * 2,
  writeBytes: txBytes * 2,
  memoryUsedKib,
});
const running = (value: DomainCounters): DomainReading => ({ running: true, counters: value });

describe("usage storage, directly against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeEach(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterEach(async () => close());
  afterAll(() => restoreEnv());

  async function server(values: Partial<typeof servers.$inferInsert> = {}): Promise<SampledServer> {
    const accountId = await createAccount(db);
    return insertServer(db, accountId, {
      status: "active",
      powerState: "running",
      hypervisor: "hv-1",
      vcpus: 2,
      memoryMb: 2048,
      createdAt: ORDERED,
      expiresAt: new Date("2026-04-01T00:00:00Z"),
      ...values,
    });
  }

  const record = (
    sampled: SampledServer[],
    readings: [number, DomainReading][],
    at: Date,
    intervalSeconds = 60,
  ) =>
    recordReadings(db, {
      host: "hv-1",
      servers: sampled,
      readings: new Map(readings),
      at,
      intervalSeconds,
      trafficCapMb: CAP_MB,
    });

  const trafficOf = async (id: number) =>
    db.select().from(serverTraffic).where(eq(serverTraffic.serverId, id));

  it("adds each reading's usage into every tier and the period's traffic; the first reading is the baseline", async () => {
    const a = await server();
    const t0 = new Date(ORDERED.getTime() + DAY);
    await record([a], [[a.id, running(counters(10_000, 5_000, 7_000, 500_000))]], t0);
    expect(await db.select().from(serverMetrics)).toEqual([]);

    const t1 = new Date(t0.getTime() + MINUTE);
    await record([a], [[a.id, running(counters(40_000, 15_000, 107_000, 600_000))]], t1);
    const rows = await db.select().from(serverMetrics).where(eq(serverMetrics.serverId, a.id));
    expect(rows.map((row) => row.stepSeconds).sort()).toEqual([300, 3600, 60]);
    for (const row of rows) {
      expect(row).toMatchObject({ seconds: 60, cpuMs: 30_000, rxBytes: 10_000, txBytes: 100_000 });
      expect(row).toMatchObject({
        readBytes: 20_000,
        writeBytes: 200_000,
        memorySamples: 1,
        memoryKibSum: 600_000,
      });
    }
    expect(await trafficOf(a.id)).toMatchObject([
      {
        periodStart: ORDERED,
        rxBytes: 10_000,
        txBytes: 100_000,
        allowanceBytes: 1_000_000,
        reached80At: null,
      },
    ]);

    // The API's view: 30 s of CPU over 60 s on 2 vCPUs is 25 %; rates per second; memory in bytes.
    const view = await readServerMetrics(db, a, "1h", false, t1);
    const last = view.timestamps.length - 1;
    expect(view.timestamps).toHaveLength(60);
    expect(view.series.cpu_percent[last]).toBe(25);
    expect(view.series.network_out_bytes_per_second[last]).toBeCloseTo(100_000 / 60, 1);
    expect(view.series.memory_used_bytes[last]).toBe(600_000 * 1024);
    expect(view.series.cpu_percent[last - 1]).toBeNull();
    expect(view.totals).toEqual({
      network_in_bytes: 10_000,
      network_out_bytes: 100_000,
      disk_read_bytes: 20_000,
      disk_write_bytes: 200_000,
    });
  });

  it("records 80 % and 100 % once each, then asks the host to slow the server, and frees it next period", async () => {
    const a = await server();
    const at = (minutes: number) => new Date(ORDERED.getTime() + DAY + minutes * MINUTE);
    expect(await record([a], [[a.id, running(counters(0, 0, 0))]], at(0))).toEqual([]);
    expect(await record([a], [[a.id, running(counters(1, 0, 850_000))]], at(1))).toEqual([]);
    const [warned] = await trafficOf(a.id);
    expect(warned).toMatchObject({ reached80At: at(1), reached100At: null });

    const changes = await record([a], [[a.id, running(counters(2, 0, 1_000_000))]], at(2));
    expect(changes).toEqual([{ serverId: a.id, running: true, mbps: 10 }]);
    const [exceeded] = await trafficOf(a.id);
    expect(exceeded).toMatchObject({ reached80At: at(1), reached100At: at(2), txBytes: 1_000_000 });

    // Until the host confirms, the change is asked again; once recorded, not again.
    expect(await record([a], [[a.id, running(counters(3, 0, 1_100_000))]], at(3))).toHaveLength(1);
    await recordSlowdown(db, { serverId: a.id, running: true, mbps: 10 }, at(3));
    expect(await record([a], [[a.id, running(counters(4, 0, 1_200_000))]], at(4))).toEqual([]);
    const [state] = await db.select().from(serverMetricState).where(eq(serverMetricState.serverId, a.id));
    expect(state).toMatchObject({ slowedMbps: 10, slowedAt: at(3) });
    const row = (await db.select().from(servers).where(eq(servers.id, a.id)))[0];
    if (!row) throw new Error("no server");
    expect(
      presentTraffic(row, exceeded && { ...exceeded, txBytes: 1_200_000 }, state, at(4), CAP_MB),
    ).toMatchObject({
      outbound_bytes: 1_200_000,
      used_percent: 120,
      reached_80_percent_at: at(1).toISOString(),
      reached_100_percent_at: at(2).toISOString(),
      slowed_to_mbps: 10,
    });

    // A new run (the machine restarted, its definition maybe rebuilt): slowed again, the setting may be gone.
    expect(await record([a], [[a.id, running(counters(1, 0, 10))]], at(5))).toEqual([
      { serverId: a.id, running: true, mbps: 10 },
    ]);

    // The next period (the expiry's month boundary): counted from zero, and the server is freed.
    const next = new Date("2026-04-01T00:00:30Z");
    expect(await record([a], [[a.id, running(counters(2, 0, 20))]], next)).toEqual([
      { serverId: a.id, running: true, mbps: null },
    ]);
    const periods = await db
      .select()
      .from(serverTraffic)
      .where(eq(serverTraffic.serverId, a.id))
      .orderBy(serverTraffic.periodStart);
    expect(periods.map((p) => [p.periodStart.toISOString(), p.txBytes, p.reached100At])).toEqual([
      ["2026-03-01T00:00:00.000Z", 1_200_010, at(2)],
      ["2026-04-01T00:00:00.000Z", 10, null],
    ]);
    expect(presentTraffic(row, periods[1], state, next, CAP_MB)).toMatchObject({
      period_start: "2026-04-01T00:00:00.000Z",
      outbound_bytes: 10,
      slowed_to_mbps: null,
    });
    // A stopped machine is freed too (in its stored definition).
    await recordSlowdown(db, { serverId: a.id, running: true, mbps: 10 }, next);
    const later = new Date(next.getTime() + MINUTE);
    expect(await record([a], [], later)).toEqual([{ serverId: a.id, running: false, mbps: null }]);
  });

  it("never counts a reading older than the one recorded (a race between two instances)", async () => {
    const a = await server();
    const t0 = new Date(ORDERED.getTime() + DAY);
    await record([a], [[a.id, running(counters(0, 0, 0))]], t0);
    await record([a], [[a.id, running(counters(10, 0, 5_000))]], new Date(t0.getTime() + 2 * MINUTE));
    // Another instance read before that, but writes after it: ignored.
    await record([a], [[a.id, running(counters(5, 0, 2_000))]], new Date(t0.getTime() + MINUTE));
    await record([a], [[a.id, running(counters(20, 0, 6_000))]], new Date(t0.getTime() + 3 * MINUTE));
    expect((await trafficOf(a.id))[0]?.txBytes).toBe(6_000);
  });

  it("counts usage across a long gap toward traffic but leaves it out of the graphs", async () => {
    const a = await server();
    const t0 = new Date(ORDERED.getTime() + DAY);
    await record([a], [[a.id, running(counters(0, 0, 0))]], t0);
    await record([a], [[a.id, running(counters(1_000, 0, 9_000))]], new Date(t0.getTime() + 2 * HOUR));
    expect((await trafficOf(a.id))[0]?.txBytes).toBe(9_000);
    expect(await db.select().from(serverMetrics)).toEqual([]);
  });

  it(`keeps at most ${ROWS_PER_SERVER_BOUND} rows per server after 40 days of readings, each tier full`, async () => {
    const sampled = [await server(), await server()];
    const start = ORDERED.getTime();
    const end = start + 40 * DAY;
    let cpu = 0;
    // Hourly readings, then every 5 minutes for the last 26 hours and every minute for the last 2.5:
    // enough for every tier to hold all it keeps (each with an interval that makes its spacing no gap).
    for (let t = start; t <= end; ) {
      cpu += 1_000;
      const at = new Date(t);
      const readings = sampled.map((s): [number, DomainReading] => [s.id, running(counters(cpu, cpu, cpu))]);
      const left = end - t;
      const step = left <= 2.5 * HOUR ? MINUTE : left <= 26 * HOUR ? 5 * MINUTE : HOUR;
      await record(sampled, readings, at, step / 1000);
      await pruneServers(
        db,
        sampled.map((s) => s.id),
        at,
      );
      t += step;
    }
    const counts = await db
      .select({
        serverId: serverMetrics.serverId,
        stepSeconds: serverMetrics.stepSeconds,
        rows: sql<number>`count(*)::int`,
      })
      .from(serverMetrics)
      .groupBy(serverMetrics.serverId, serverMetrics.stepSeconds);
    for (const s of sampled) {
      const mine = counts.filter((row) => row.serverId === s.id);
      const total = mine.reduce((sum, row) => sum + row.rows, 0);
      expect(total).toBeLessThanOrEqual(ROWS_PER_SERVER_BOUND);
      // Each tier holds what it keeps (so the bound was approached, not met by an empty table).
      for (const tier of TIERS) {
        const rows = mine.find((row) => row.stepSeconds === tier.stepSeconds)?.rows ?? 0;
        expect(rows).toBeGreaterThanOrEqual(tier.keepSeconds / tier.stepSeconds);
      }
    }
    expect(ROWS_PER_SERVER_BOUND).toBeLessThan(1_200);
    // 30 days of hourly points are all there.
    const month = await readServerMetrics(db, sampled[0] as SampledServer, "30d", false, new Date(end));
    expect(month.series.cpu_percent.filter((value) => value !== null).length).toBeGreaterThanOrEqual(719);
  }, 400_000);

  it("deletes a terminated server's usage once the longest tier would have", async () => {
    const a = await server();
    const t0 = new Date(ORDERED.getTime() + DAY);
    await record([a], [[a.id, running(counters(0, 0, 0))]], t0);
    await record([a], [[a.id, running(counters(10, 0, 500))]], new Date(t0.getTime() + MINUTE));
    await db.update(servers).set({ status: "terminated", terminatedAt: t0 }).where(eq(servers.id, a.id));
    expect(await pruneTerminated(db, new Date(t0.getTime() + 31 * DAY))).toBe(0);
    expect(await pruneTerminated(db, new Date(t0.getTime() + 33 * DAY))).toBe(1);
    expect(await db.select().from(serverMetrics)).toEqual([]);
    expect(await db.select().from(serverTraffic)).toEqual([]);
    expect(await db.select().from(serverMetricState)).toEqual([]);
  });
});
