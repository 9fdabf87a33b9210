import "server-only";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";

/**
 * The status page's measured figures, read from what the services record as they work: order outcomes,
 * deposit credits, console sessions, webhook deliveries (docs/status-page.md says how each is measured). Each
 * is a bounded read of the last 7 days from an index on its time column; nothing here calls a host or a node.
 *
 * Percentiles are nearest-rank (PostgreSQL's `percentile_disc`): of n values in order, p95 is the one at
 * position ceil(0.95 n), always a value that was measured.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;
/** The charts' buckets: the last 168 hours, the current one included. */
export const SERIES_HOURS = 168;

export type Timing = { n: number; p50: number | null; p95: number | null; p99: number | null };
/** Outcomes counted in a window, and the timings of the successful ones (by measure). */
export type Aggregate<M extends string> = { total: number; succeeded: number; timings: Record<M, Timing> };
export type Windowed<T> = { day: T; week: T };
/** Hourly p50 and p95 of one measure over the last SERIES_HOURS hours: null where nothing was measured. */
export type Series = { p50: (number | null)[]; p95: (number | null)[] };

/**
 * A source of samples over the window (from, to]: rows of `k` (the group: a location and image, a coin, or ''),
 * `at` (the time that places the sample in a window), `ok` (whether it succeeded) and one double-precision
 * column of milliseconds per measure (null where not measured).
 */
type Source<M extends string> = { measures: readonly M[]; rows: (from: string, to: string) => SQL };

const iso = (date: Date) => date.toISOString();
const milliseconds = (later: string, earlier: string) =>
  sql.raw(`(extract(epoch from (${later} - ${earlier})) * 1000)::double precision`);

/** Orders whose build ended: active (with the times to active and to SSH answering) or failed for good. */
const ORDERS: Source<"to_active" | "to_ssh"> = {
  measures: ["to_active", "to_ssh"],
  rows: (from, to) => sql`
    SELECT location || ' ' || os AS k, finished_at AS at, succeeded AS ok,
      CASE WHEN succeeded THEN ${milliseconds("finished_at", "ordered_at")} END AS to_active,
      CASE WHEN succeeded THEN ${milliseconds("ssh_answered_at", "ordered_at")} END AS to_ssh
    FROM order_outcomes
    WHERE finished_at > ${from}::timestamptz AND finished_at <= ${to}::timestamptz`,
};

/** Deposits credited, by coin: from the time of the block that completed their confirmations to the credit's commit. */
const CREDITS: Source<"to_credit"> = {
  measures: ["to_credit"],
  rows: (from, to) => sql`
    SELECT t.coin AS k, p.confirmed_at AS at, true AS ok,
      GREATEST(0, ${milliseconds("p.confirmed_at", "p.confirming_block_at")}) AS to_credit
    FROM deposit_payments p JOIN topups t ON t.id = p.topup_id
    WHERE p.confirmed_at > ${from}::timestamptz AND p.confirmed_at <= ${to}::timestamptz
      AND p.confirming_block_at IS NOT NULL AND t.method = 'deposit'`,
};

/**
 * Console sessions opened with their ticket: the first byte came, or the session closed without one (except
 * when there was no machine to reach: it was stopped, or the server no longer active).
 */
const CONSOLES: Source<"to_first_byte"> = {
  measures: ["to_first_byte"],
  rows: (from, to) => sql`
    SELECT '' AS k, requested_at AS at, first_byte_at IS NOT NULL AS ok,
      ${milliseconds("first_byte_at", "requested_at")} AS to_first_byte
    FROM console_sessions
    WHERE requested_at > ${from}::timestamptz AND requested_at <= ${to}::timestamptz AND opened_at IS NOT NULL
      AND (first_byte_at IS NOT NULL
        OR (closed_at IS NOT NULL AND close_reason NOT IN ('machine_stopped', 'server_not_active')))`,
};

/**
 * Webhook deliveries settled (delivered, or failed for good): from the event's commit to the receiver's answer
 * to the attempt that delivered it. One delivered only by a redelivery asked by hand counts neither way.
 */
const WEBHOOKS: Source<"to_delivery"> = {
  measures: ["to_delivery"],
  rows: (from, to) => sql`
    SELECT '' AS k, e.occurred_at AS at, d.state = 'delivered' AS ok,
      CASE WHEN d.state = 'delivered'
        THEN ${milliseconds("a.sent_at", "e.occurred_at")} + a.duration_ms END AS to_delivery
    FROM notification_events e
    JOIN notification_deliveries d ON d.event_id = e.id
    JOIN notification_endpoints n ON n.id = d.endpoint_id AND n.kind = 'webhook'
    LEFT JOIN notification_attempts a ON a.delivery_id = d.id AND a.succeeded AND NOT a.manual
    WHERE e.occurred_at > ${from}::timestamptz AND e.occurred_at <= ${to}::timestamptz
      AND (d.state = 'failed' OR (d.state = 'delivered' AND a.id IS NOT NULL))`,
};

type Row = Record<string, unknown>;
const rowsOf = (result: unknown) => (result as { rows: Row[] }).rows;
const count = (value: unknown) => Number(value ?? 0);

/** A `float8[]` as the drivers give it (an array, or its text form); null when nothing was measured. */
function percentiles(value: unknown): (number | null)[] | null {
  if (value === null || value === undefined) return null;
  const list = Array.isArray(value) ? value : String(value).replace(/[{}]/g, "").split(",");
  return list.map((entry) => (entry === null || entry === "NULL" ? null : Number(entry)));
}

/** The start (ms) of each of the SERIES_HOURS hourly buckets ending with the one `at` is in. */
export function seriesHours(at: Date): number[] {
  const last = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: SERIES_HOURS }, (_, i) => last - (SERIES_HOURS - 1 - i) * HOUR_MS);
}

type Measured<M extends string> = {
  /** Per group, the outcomes and timings over the last 24 hours and the last 7 days. */
  groups: Map<string, Windowed<Aggregate<M>>>;
  /** Per measure, hourly p50 and p95 of every group together. */
  hourly: Record<M, Series>;
};

/**
 * One read of a source's last 7 days before `at`, grouped two ways at once (GROUPING SETS): by group, with
 * each window's counts and percentiles, and by hour, for the charts. Each window and measure sorts once
 * (`percentile_disc` of an array of fractions).
 */
async function measure<M extends string>(
  database: Database,
  source: Source<M>,
  at: Date,
): Promise<Measured<M>> {
  const day = sql`s.at > ${iso(new Date(at.getTime() - DAY_MS))}::timestamptz`;
  /** A window's columns, named `<window>_…`: every sample of the window passes `within`. */
  const columns = (name: "day" | "week", within: SQL) => [
    sql`count(*) FILTER (WHERE ${within}) AS ${sql.raw(`${name}_total`)}`,
    sql`count(*) FILTER (WHERE ${within} AND s.ok) AS ${sql.raw(`${name}_ok`)}`,
    ...source.measures.flatMap((measure) => {
      const value = sql.raw(`s.${measure}`);
      return [
        sql`count(${value}) FILTER (WHERE ${within}) AS ${sql.raw(`${name}_${measure}_n`)}`,
        sql`percentile_disc(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY ${value})
          FILTER (WHERE ${within}) AS ${sql.raw(`${name}_${measure}_p`)}`,
      ];
    }),
  ];
  const result = await database.execute(sql`
    SELECT s.k, s.hour, GROUPING(s.k) AS by_hour,
      ${sql.join([...columns("day", day), ...columns("week", sql`true`)], sql`, `)}
    FROM (SELECT source.*, floor(extract(epoch from source.at) / 3600)::bigint AS hour
      FROM (${source.rows(iso(new Date(at.getTime() - WEEK_MS)), iso(at))}) source) s
    GROUP BY GROUPING SETS ((s.k), (s.hour))`);
  const groups = new Map<string, Windowed<Aggregate<M>>>();
  const byHour = new Map<number, Row>();
  for (const row of rowsOf(result)) {
    if (count(row.by_hour) === 1) {
      byHour.set(count(row.hour) * HOUR_MS, row);
      continue;
    }
    const aggregate = (name: "day" | "week"): Aggregate<M> => ({
      total: count(row[`${name}_total`]),
      succeeded: count(row[`${name}_ok`]),
      timings: Object.fromEntries(
        source.measures.map((measure) => {
          const [p50 = null, p95 = null, p99 = null] = percentiles(row[`${name}_${measure}_p`]) ?? [];
          return [measure, { n: count(row[`${name}_${measure}_n`]), p50, p95, p99 }];
        }),
      ) as Record<M, Timing>,
    });
    groups.set(String(row.k), { day: aggregate("day"), week: aggregate("week") });
  }
  // The hours of the charts lie within the 7 days (the first, partial hour of the window is left out).
  const hours = seriesHours(at);
  const hourly = Object.fromEntries(
    source.measures.map((measure) => {
      const of = (hour: number, index: number) =>
        percentiles(byHour.get(hour)?.[`week_${measure}_p`])?.[index] ?? null;
      return [measure, { p50: hours.map((hour) => of(hour, 0)), p95: hours.map((hour) => of(hour, 1)) }];
    }),
  ) as Record<M, Series>;
  return { groups, hourly };
}

export type StatusFigures = {
  /** By `<location> <os>` as ordered. */
  orders: Map<string, Windowed<Aggregate<"to_active" | "to_ssh">>>;
  /** By coin code. */
  credits: Map<string, Windowed<Aggregate<"to_credit">>>;
  consoles: Windowed<Aggregate<"to_first_byte">>;
  webhooks: Windowed<Aggregate<"to_delivery">>;
  series: { hours: number[]; toActive: Series; toCredit: Series; toFirstByte: Series; toDelivery: Series };
};

const none = <M extends string>(measures: readonly M[]): Windowed<Aggregate<M>> => {
  const empty = (): Aggregate<M> => ({
    total: 0,
    succeeded: 0,
    timings: Object.fromEntries(
      measures.map((measure) => [measure, { n: 0, p50: null, p95: null, p99: null }]),
    ) as Record<M, Timing>,
  });
  return { day: empty(), week: empty() };
};

/**
 * Every measured figure as of `at`: one read per source, each a bounded read of its index. On the embedded
 * database a query holds the event loop while it runs: requests waiting go first between two.
 */
export async function measureStatusFigures(
  database: Database,
  at: Date,
  rest: () => Promise<unknown> = async () => undefined,
): Promise<StatusFigures> {
  const orders = await measure(database, ORDERS, at);
  await rest();
  const credits = await measure(database, CREDITS, at);
  await rest();
  const consoles = await measure(database, CONSOLES, at);
  await rest();
  const webhooks = await measure(database, WEBHOOKS, at);
  return {
    orders: orders.groups,
    credits: credits.groups,
    consoles: consoles.groups.get("") ?? none(CONSOLES.measures),
    webhooks: webhooks.groups.get("") ?? none(WEBHOOKS.measures),
    series: {
      hours: seriesHours(at),
      toActive: orders.hourly.to_active,
      toCredit: credits.hourly.to_credit,
      toFirstByte: consoles.hourly.to_first_byte,
      toDelivery: webhooks.hourly.to_delivery,
    },
  };
}
