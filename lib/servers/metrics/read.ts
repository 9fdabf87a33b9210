import "server-only";
import { and, asc, eq, gte, lt } from "drizzle-orm";
import { badRequest } from "@/lib/api/errors";
import type { ServerMetrics } from "@/lib/api/schemas/metrics";
import { type Database, db } from "@/lib/db/client";
import { serverMetricState, serverMetrics } from "@/lib/db/schema";
import { createVersionedCache } from "@/lib/db/versioned-cache";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";
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

/** Answers kept for reuse (lib/db/versioned-cache.ts): a month's grid is about 50 kB, so a few hundred. */
const answers = () => processWide("metrics.answers", () => createVersionedCache(500));

/**
 * GET /servers/{id}/metrics: the account's server's usage over the period (another account's id is 404).
 * A server's usage changes only when a reading of it is recorded, which moves its `read_at` in the same
 * transaction (store.ts; pruning deletes only buckets older than any period shows), and the grid moves on
 * at the end of its last bucket: an answer is reused while both stand, whichever instance sampled, so a
 * poll costs a one-row read instead of up to 720 buckets.
 */
export async function getServerMetrics(
  reader: ServerReader,
  serverId: number,
  period: MetricPeriod,
): Promise<ServerMetrics> {
  const row = await ownedRow(reader, serverId);
  const database = await db();
  const [state] = await database
    .select({ readAt: serverMetricState.readAt })
    .from(serverMetricState)
    .where(eq(serverMetricState.serverId, row.id));
  const at = now();
  const key = `${row.id}:${period}:${row.vcpus}`;
  const version = state?.readAt.getTime() ?? 0;
  const kept = answers().get<ServerMetrics>(key, version, at.getTime());
  if (kept) return kept.value;
  const answer = await readServerMetrics(database, row, period, provisioner().simulated, at);
  answers().set(key, version, answer, Date.parse(answer.to));
  return answer;
}
