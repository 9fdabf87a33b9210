import "server-only";
import { and, eq, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import { TRAFFIC_POLICY } from "@/lib/catalog/catalog";
import type { Database, Tx } from "@/lib/db/client";
import { serverMetricState, serverMetrics, serverTraffic } from "@/lib/db/schema";
import { recordTrafficThresholds } from "@/lib/notifications/facts";
import { type Usage, usageSince } from "./counters";
import type { DomainReading } from "./domstats";
import { allowanceBytes, levelsReached, type Period, trafficPeriod } from "./periods";
import type { SampledServer } from "./source";
import { bucketStart, TIERS } from "./tiers";

export type TrafficRow = typeof serverTraffic.$inferSelect;
export type StateRow = typeof serverMetricState.$inferSelect;

/** A change of a server's network speed its host must make: slow it (mbps) or free it (null). */
export type SlowdownChange = { serverId: number; running: boolean; mbps: number | null };

/** Traffic periods ended longer ago than this are deleted (a year of monthly figures stays visible). */
export const TRAFFIC_RETENTION_DAYS = 400;

/** Rows per statement: a host with thousands of servers is written in slices. */
const SLICE = 400;

/** Arbitrary constant: with a hash of the host name, the transaction lock that serialises a host's recording. */
const RECORDING_LOCK = 7_340_213;

function hostKey(host: string): number {
  let hash = 0x811c9dc5;
  for (const char of host) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash | 0;
}

const slices = <T>(items: T[]) =>
  Array.from({ length: Math.ceil(items.length / SLICE) }, (_, i) => items.slice(i * SLICE, (i + 1) * SLICE));

/** The last reading of each server (the next one counts from it). */
export async function lastReadings(database: Database | Tx, ids: number[]): Promise<Map<number, StateRow>> {
  const rows = ids.length
    ? await database.select().from(serverMetricState).where(inArray(serverMetricState.serverId, ids))
    : [];
  return new Map(rows.map((row) => [row.serverId, row]));
}

/** Each server's newest traffic period row. */
export async function latestTraffic(
  database: Database | Tx,
  ids: number[],
): Promise<Map<number, TrafficRow>> {
  if (ids.length === 0) return new Map();
  const rows = await database
    .selectDistinctOn([serverTraffic.serverId])
    .from(serverTraffic)
    .where(inArray(serverTraffic.serverId, ids))
    .orderBy(serverTraffic.serverId, sql`${serverTraffic.periodStart} DESC`);
  return new Map(rows.map((row) => [row.serverId, row]));
}

/** The server's traffic row for the period `at` falls in: the stored one, or a fresh one at zero. */
export function currentTraffic(
  server: SampledServer,
  latest: TrafficRow | undefined,
  at: Date,
  trafficCapMb: number | undefined,
): TrafficRow {
  const stored: Period | undefined = latest && { start: latest.periodStart, end: latest.periodEnd };
  const period = trafficPeriod(at, server, stored);
  if (latest && latest.periodStart.getTime() === period.start.getTime()) return latest;
  return {
    serverId: server.id,
    periodStart: period.start,
    periodEnd: period.end,
    allowanceBytes: allowanceBytes(server.plan, trafficCapMb),
    rxBytes: 0,
    txBytes: 0,
    reached80At: null,
    reached100At: null,
  };
}

export type RecordInput = {
  host: string;
  servers: SampledServer[];
  readings: Map<number, DomainReading>;
  at: Date;
  intervalSeconds: number;
  trafficCapMb: number | undefined;
};

type MetricRow = typeof serverMetrics.$inferInsert;

/** One reading's usage as a row of each tier. */
function tierRows(serverId: number, usage: Usage, seconds: number, at: Date): MetricRow[] {
  return TIERS.map((tier) => ({
    serverId,
    stepSeconds: tier.stepSeconds,
    bucket: bucketStart(at, tier.stepSeconds),
    seconds,
    memorySamples: usage.memoryUsedKib === undefined ? 0 : 1,
    memoryKibSum: usage.memoryUsedKib ?? 0,
    cpuMs: usage.cpuMs,
    rxBytes: usage.rxBytes,
    txBytes: usage.txBytes,
    readBytes: usage.readBytes,
    writeBytes: usage.writeBytes,
  }));
}

const summed = (column: string) => sql.raw(`"server_metrics"."${column}" + excluded."${column}"`);

/**
 * Records one reading of a host in one transaction, serialised per host by a transaction lock: the counters
 * kept per server, its usage added into the bucket of each tier and into its traffic period (with the moments
 * it reached 80 % and 100 %). A reading not newer than the last one recorded for a server is ignored, so a
 * reading that lost a race with another instance's newer one is never counted. Usage after a gap longer than
 * `max(3 intervals, 5 min)` (the app was down, the host unreachable, the clock moved) still counts toward the
 * period's traffic, since the bytes are real, but stays out of the graphs, which would show it as a spike.
 * Returns the speed changes the hosts must make: a server past its allowance is slowed, and freed once a
 * new period begins; one whose machine began a new run is slowed again (a rebuilt definition lost it).
 */
export async function recordReadings(database: Database, input: RecordInput): Promise<SlowdownChange[]> {
  const { servers, readings, at } = input;
  const gapMs = Math.max(3 * input.intervalSeconds, 300) * 1000;
  return database.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${RECORDING_LOCK}, ${hostKey(input.host)})`);
    const ids = servers.map((server) => server.id);
    const last = await lastReadings(tx, ids);
    const latest = await latestTraffic(tx, ids);
    const states: (typeof serverMetricState.$inferInsert)[] = [];
    const metrics: MetricRow[] = [];
    const traffic: TrafficRow[] = [];
    const changes: SlowdownChange[] = [];
    for (const server of servers) {
      const reading = readings.get(server.id);
      const previous = last.get(server.id);
      const period = currentTraffic(server, latest.get(server.id), at, input.trafficCapMb);
      let newRun = false;
      let changed = false;
      if (reading?.counters && !(previous && previous.readAt >= at)) {
        const outcome = usageSince(previous, reading.counters);
        newRun = outcome.newRun;
        const { memoryUsedKib: _memory, ...counters } = reading.counters;
        states.push({
          serverId: server.id,
          readAt: at,
          ...counters,
          slowedMbps: previous?.slowedMbps ?? null,
        });
        const usage = outcome.usage;
        if (usage && previous) {
          period.rxBytes += usage.rxBytes;
          period.txBytes += usage.txBytes;
          for (const level of levelsReached(period.txBytes, period.allowanceBytes)) {
            if (level === 80) period.reached80At ??= at;
            if (level === 100) period.reached100At ??= at;
          }
          changed = true;
          const elapsedMs = at.getTime() - previous.readAt.getTime();
          if (elapsedMs <= gapMs)
            metrics.push(...tierRows(server.id, usage, Math.round(elapsedMs / 1000), at));
        }
      }
      if (changed) traffic.push(period);
      // Only a server read at least once has a host setting to change.
      if (!previous) continue;
      const wanted = period.reached100At ? TRAFFIC_POLICY.slowedMbps : null;
      if (wanted !== previous.slowedMbps || (wanted !== null && newRun)) {
        changes.push({ serverId: server.id, running: reading?.running ?? false, mbps: wanted });
      }
    }
    for (const slice of slices(states)) {
      await tx
        .insert(serverMetricState)
        .values(slice)
        .onConflictDoUpdate({
          target: serverMetricState.serverId,
          set: {
            readAt: sql.raw("excluded.read_at"),
            cpuMs: sql.raw("excluded.cpu_ms"),
            rxBytes: sql.raw("excluded.rx_bytes"),
            txBytes: sql.raw("excluded.tx_bytes"),
            readBytes: sql.raw("excluded.read_bytes"),
            writeBytes: sql.raw("excluded.write_bytes"),
          },
        });
    }
    for (const slice of slices(metrics)) {
      await tx
        .insert(serverMetrics)
        .values(slice)
        .onConflictDoUpdate({
          target: [serverMetrics.serverId, serverMetrics.stepSeconds, serverMetrics.bucket],
          set: {
            seconds: summed("seconds"),
            memorySamples: summed("memory_samples"),
            memoryKibSum: summed("memory_kib_sum"),
            cpuMs: summed("cpu_ms"),
            rxBytes: summed("rx_bytes"),
            txBytes: summed("tx_bytes"),
            readBytes: summed("read_bytes"),
            writeBytes: summed("write_bytes"),
          },
        });
    }
    for (const slice of slices(traffic)) {
      await tx
        .insert(serverTraffic)
        .values(slice)
        .onConflictDoUpdate({
          target: [serverTraffic.serverId, serverTraffic.periodStart],
          set: {
            rxBytes: sql.raw("excluded.rx_bytes"),
            txBytes: sql.raw("excluded.tx_bytes"),
            reached80At: sql.raw("excluded.reached_80_at"),
            reached100At: sql.raw("excluded.reached_100_at"),
          },
        });
    }
    await recordTrafficThresholds(tx, traffic, at);
    return changes;
  });
}

/** Records that the host made a speed change (slowed to `mbps`, or freed with null). */
export async function recordSlowdown(database: Database, change: SlowdownChange, at: Date): Promise<void> {
  await database
    .update(serverMetricState)
    .set({ slowedMbps: change.mbps, slowedAt: change.mbps === null ? null : at })
    .where(eq(serverMetricState.serverId, change.serverId));
}

/** Deletes the servers' rows past each tier's retention, and traffic periods past theirs. */
export async function pruneServers(database: Database, ids: number[], at: Date): Promise<void> {
  for (const slice of slices(ids)) {
    const expired: SQL[] = TIERS.map(
      (tier) =>
        sql`(${serverMetrics.stepSeconds} = ${tier.stepSeconds} AND ${serverMetrics.bucket} < ${new Date(at.getTime() - tier.keepSeconds * 1000)})`,
    );
    await database.delete(serverMetrics).where(and(inArray(serverMetrics.serverId, slice), or(...expired)));
    await database
      .delete(serverTraffic)
      .where(
        and(
          inArray(serverTraffic.serverId, slice),
          lt(serverTraffic.periodEnd, new Date(at.getTime() - TRAFFIC_RETENTION_DAYS * 86_400_000)),
        ),
      );
  }
}
