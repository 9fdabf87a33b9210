import "server-only";
import { and, asc, eq, gte, lt } from "drizzle-orm";
import { badRequest } from "@/lib/api/errors";
import type { ServerMetrics } from "@/lib/api/schemas/metrics";
import { type Database, db } from "@/lib/db/client";
import { serverMetrics } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import type { ServerRow } from "../present";
import { provisioner } from "../provisioner";
import { ownedRow, type ServerReader } from "../reads";
import { bucketStart, METRIC_PERIODS, type MetricPeriod, PERIOD_VIEWS } from "./tiers";

/** The `period` query parameter: 24h when absent, 400 `invalid_period` when not one of the periods. */
export function metricPeriod(value: string | null): MetricPeriod {
  if (value === null) return "24h";
  const period = METRIC_PERIODS.find((candidate) => candidate === value);
  if (!period) throw badRequest("invalid_period", `Send period as one of ${METRIC_PERIODS.join(", ")}.`);
  return period;
}

type Bucket = typeof serverMetrics.$inferSelect;

const perSecond = (bytes: number, bucket: Bucket) => Math.round((bytes / bucket.seconds) * 10) / 10;

/**
 * The server's usage over `period` on a regular grid of its tier's buckets, oldest first, the current bucket
 * last; a bucket with nothing measured (the machine was off, or not yet read) is null.
 */
export async function readServerMetrics(
  database: Database,
  row: Pick<ServerRow, "id" | "vcpus">,
  period: MetricPeriod,
  demo: boolean,
  at: Date,
): Promise<ServerMetrics> {
  const { seconds, stepSeconds } = PERIOD_VIEWS[period];
  const stepMs = stepSeconds * 1000;
  const count = seconds / stepSeconds;
  const to = bucketStart(at, stepSeconds).getTime() + stepMs;
  const from = to - count * stepMs;
  const rows = await database
    .select()
    .from(serverMetrics)
    .where(
      and(
        eq(serverMetrics.serverId, row.id),
        eq(serverMetrics.stepSeconds, stepSeconds),
        gte(serverMetrics.bucket, new Date(from)),
        lt(serverMetrics.bucket, new Date(to)),
      ),
    )
    .orderBy(asc(serverMetrics.bucket));
  const slots: (Bucket | undefined)[] = new Array(count).fill(undefined);
  for (const bucket of rows) {
    if (bucket.seconds > 0) slots[Math.floor((bucket.bucket.getTime() - from) / stepMs)] = bucket;
  }
  const vcpus = Math.max(1, row.vcpus ?? 1);
  const series = (value: (bucket: Bucket) => number | null) =>
    slots.map((bucket) => (bucket ? value(bucket) : null));
  const total = (field: "rxBytes" | "txBytes" | "readBytes" | "writeBytes") =>
    rows.reduce((sum, bucket) => sum + bucket[field], 0);
  return {
    server_id: row.id,
    period,
    demo,
    resolution_seconds: stepSeconds,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    timestamps: slots.map((_, index) => (from + index * stepMs) / 1000),
    series: {
      // QEMU's own threads count too (emulation, I/O): capped at the vCPUs' whole.
      cpu_percent: series(
        (bucket) => Math.round(Math.min(100, bucket.cpuMs / (bucket.seconds * 10 * vcpus)) * 10) / 10,
      ),
      memory_used_bytes: series((bucket) =>
        bucket.memorySamples > 0 ? Math.round((bucket.memoryKibSum / bucket.memorySamples) * 1024) : null,
      ),
      network_in_bytes_per_second: series((bucket) => perSecond(bucket.rxBytes, bucket)),
      network_out_bytes_per_second: series((bucket) => perSecond(bucket.txBytes, bucket)),
      disk_read_bytes_per_second: series((bucket) => perSecond(bucket.readBytes, bucket)),
      disk_write_bytes_per_second: series((bucket) => perSecond(bucket.writeBytes, bucket)),
    },
    totals: {
      network_in_bytes: total("rxBytes"),
      network_out_bytes: total("txBytes"),
      disk_read_bytes: total("readBytes"),
      disk_write_bytes: total("writeBytes"),
    },
  };
}

/** GET /servers/{id}/metrics: the account's server's usage over the period (another account's id is 404). */
export async function getServerMetrics(
  reader: ServerReader,
  serverId: number,
  period: MetricPeriod,
): Promise<ServerMetrics> {
  const row = await ownedRow(reader, serverId);
  return readServerMetrics(await db(), row, period, provisioner().simulated, now());
}
