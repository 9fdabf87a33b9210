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

/** Deposits credited, by coin: from the first sighting with the confirmations needed to the credit's commit. */
const CREDITS: Source<"to_credit"> = {
  measures: ["to_credit"],
  rows: (from, to) => sql`
    SELECT t.coin AS k, p.confirmed_at AS at, true AS ok,
      GREATEST(0, ${milliseconds("p.confirmed_at", "p.confirming_seen_at")}) AS to_credit
    FROM deposit_payments p JOIN topups t ON t.id = p.topup_id
    WHERE p.confirmed_at > ${from}::timestamptz AND p.confirmed_at <= ${to}::timestamptz
      AND p.confirming_seen_at IS NOT NULL AND t.method = 'deposit'`,
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
const msOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** Per group, the outcomes and timings over the last 24 hours and the last 7 days before `at`. */
async function windowed<M extends string>(
  database: Database,
  source: Source<M>,
  at: Date,
): Promise<Map<string, Windowed<Aggregate<M>>>> {
  const day = iso(new Date(at.getTime() - DAY_MS));
  /** A window's columns, named `<window>_…`: every sample of the window passes `within`. */
  const columns = (name: "day" | "week", within: SQL) => [
    sql`count(*) FILTER (WHERE ${within}) AS ${sql.raw(`${name}_total`)}`,
    sql`count(*) FILTER (WHERE ${within} AND s.ok) AS ${sql.raw(`${name}_ok`)}`,
    ...source.measures.flatMap((measure) => {
      const value = sql.raw(`s.${measure}`);
      return [
        sql`count(${value}) FILTER (WHERE ${within}) AS ${sql.raw(`${name}_${measure}_n`)}`,
        ...([50, 95, 99] as const).map(
          (p) => sql`percentile_disc(${p / 100}::float8) WITHIN GROUP (ORDER BY ${value})
            FILTER (WHERE ${within}) AS ${sql.raw(`${name}_${measure}_p${p}`)}`,
        ),
      ];
    }),
  ];
  const result = await database.execute(sql`
    SELECT s.k, ${sql.join(
      [...columns("day", sql`s.at > ${day}::timestamptz`), ...columns("week", sql`true`)],
      sql`, `,
    )}
    FROM (${source.rows(iso(new Date(at.getTime() - WEEK_MS)), iso(at))}) s
    GROUP BY s.k`);
  const figures = new Map<string, Windowed<Aggregate<M>>>();
  for (const row of rowsOf(result)) {
    const aggregate = (name: "day" | "week"): Aggregate<M> => ({
      total: count(row[`${name}_total`]),
      succeeded: count(row[`${name}_ok`]),
      timings: Object.fromEntries(
        source.measures.map((measure) => [
          measure,
          {
            n: count(row[`${name}_${measure}_n`]),
            p50: msOrNull(row[`${name}_${measure}_p50`]),
            p95: msOrNull(row[`${name}_${measure}_p95`]),
            p99: msOrNull(row[`${name}_${measure}_p99`]),
          },
        ]),
      ) as Record<M, Timing>,
    });
    figures.set(String(row.k), { day: aggregate("day"), week: aggregate("week") });
  }
  return figures;
}

/** The start (ms) of each of the SERIES_HOURS hourly buckets ending with the one `at` is in. */
export function seriesHours(at: Date): number[] {
  const last = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: SERIES_HOURS }, (_, i) => last - (SERIES_HOURS - 1 - i) * HOUR_MS);
}

/** Hourly p50 and p95 of one measure, all groups together, over the chart's hours. */
async function hourly<M extends string>(
  database: Database,
  source: Source<M>,
  measure: M,
  at: Date,
): Promise<Series> {
  const hours = seriesHours(at);
  const first = hours[0] ?? at.getTime();
  const result = await database.execute(sql`
    SELECT floor(extract(epoch from s.at) / 3600)::bigint AS hour,
      percentile_disc(0.5::float8) WITHIN GROUP (ORDER BY ${sql.raw(`s.${measure}`)}) AS p50,
      percentile_disc(0.95::float8) WITHIN GROUP (ORDER BY ${sql.raw(`s.${measure}`)}) AS p95
    FROM (${source.rows(iso(new Date(first - 1)), iso(at))}) s
    WHERE ${sql.raw(`s.${measure}`)} IS NOT NULL
    GROUP BY 1`);
  const byHour = new Map(rowsOf(result).map((row) => [count(row.hour) * HOUR_MS, row]));
  return {
    p50: hours.map((hour) => msOrNull(byHour.get(hour)?.p50)),
    p95: hours.map((hour) => msOrNull(byHour.get(hour)?.p95)),
  };
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

/** Every measured figure as of `at`, one query after another (each a bounded read of its index). */
export async function measureStatusFigures(database: Database, at: Date): Promise<StatusFigures> {
  const orders = await windowed(database, ORDERS, at);
  const credits = await windowed(database, CREDITS, at);
  const consoles = (await windowed(database, CONSOLES, at)).get("") ?? none(CONSOLES.measures);
  const webhooks = (await windowed(database, WEBHOOKS, at)).get("") ?? none(WEBHOOKS.measures);
  return {
    orders,
    credits,
    consoles,
    webhooks,
    series: {
      hours: seriesHours(at),
      toActive: await hourly(database, ORDERS, "to_active", at),
      toCredit: await hourly(database, CREDITS, "to_credit", at),
      toFirstByte: await hourly(database, CONSOLES, "to_first_byte", at),
      toDelivery: await hourly(database, WEBHOOKS, "to_delivery", at),
    },
  };
}
