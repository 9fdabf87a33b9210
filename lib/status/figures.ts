import "server-only";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";

/**
 * The status page's measured figures, read from what the services record as they work: order outcomes,
 * deposit credits, console sessions, webhook deliveries (docs/status-page.md says how each is measured). Each
 * source's last 7 days are read from an index on its time column, six hours at a time, and counted here;
 * nothing here calls a host or a node.
 *
 * Percentiles are nearest-rank (as PostgreSQL's `percentile_disc`): of n values in order, p95 is the one at
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

/** The start (ms) of each of the SERIES_HOURS hourly buckets ending with the one `at` is in. */
export function seriesHours(at: Date): number[] {
  const last = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: SERIES_HOURS }, (_, i) => last - (SERIES_HOURS - 1 - i) * HOUR_MS);
}

/** The window is read in slices of this many hours: each a short read, however busy the week was. */
const SLICE_HOURS = 6;

/** Nearest-rank percentiles of `sorted` (ascending), as PostgreSQL's `percentile_disc` takes them. */
export function nearestRank(sorted: number[], fractions: readonly number[]): (number | null)[] {
  return fractions.map((fraction) =>
    sorted.length === 0 ? null : (sorted[Math.max(Math.ceil(fraction * sorted.length), 1) - 1] ?? null),
  );
}

const ascending = (a: number, b: number) => a - b;
const timingOf = (values: number[]): Timing => {
  const [p50, p95, p99] = nearestRank(values.sort(ascending), [0.5, 0.95, 0.99]);
  return { n: values.length, p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null };
};

/** A window's samples as they are read: counts, and the measured values of each measure. */
type Tally<M extends string> = { total: number; succeeded: number; values: Record<M, number[]> };
const tally = <M extends string>(measures: readonly M[]): Tally<M> => ({
  total: 0,
  succeeded: 0,
  values: Object.fromEntries(measures.map((measure) => [measure, []])) as unknown as Record<M, number[]>,
});
const aggregateOf = <M extends string>(measures: readonly M[], counted: Tally<M>): Aggregate<M> => ({
  total: counted.total,
  succeeded: counted.succeeded,
  timings: Object.fromEntries(
    measures.map((measure) => [measure, timingOf(counted.values[measure])]),
  ) as Record<M, Timing>,
});

type Measured<M extends string> = {
  /** Per group, the outcomes and timings over the last 24 hours and the last 7 days. */
  groups: Map<string, Windowed<Aggregate<M>>>;
  /** Per measure, hourly p50 and p95 of every group together. */
  hourly: Record<M, Series>;
};

/**
 * A source's last 7 days before `at`, read slice by slice (`rest` between two, so requests waiting on the
 * database go first), and counted here: per group, each window's outcomes and percentiles; per hour, the
 * charts' percentiles of every group together. What is held is one number per sample and measure.
 */
async function measure<M extends string>(
  database: Database,
  source: Source<M>,
  at: Date,
  rest: () => Promise<unknown>,
): Promise<Measured<M>> {
  const dayStart = at.getTime() - DAY_MS;
  const byGroup = new Map<string, Windowed<Tally<M>>>();
  const byHour = new Map<number, Record<M, number[]>>();
  const columns = sql.raw(source.measures.map((measure) => `s.${measure}`).join(", "));
  for (let from = at.getTime() - WEEK_MS; from < at.getTime(); from += SLICE_HOURS * HOUR_MS) {
    if (from > at.getTime() - WEEK_MS) await rest();
    const to = Math.min(from + SLICE_HOURS * HOUR_MS, at.getTime());
    const result = await database.execute(sql`
      SELECT s.k, (extract(epoch from s.at) * 1000)::double precision AS at_ms, s.ok, ${columns}
      FROM (${source.rows(iso(new Date(from)), iso(new Date(to)))}) s`);
    for (const row of rowsOf(result)) {
      const group = String(row.k);
      let windows = byGroup.get(group);
      if (!windows) {
        windows = { day: tally(source.measures), week: tally(source.measures) };
        byGroup.set(group, windows);
      }
      const atMs = Number(row.at_ms);
      const hour = Math.floor(atMs / HOUR_MS) * HOUR_MS;
      let hourly = byHour.get(hour);
      if (!hourly) {
        hourly = tally(source.measures).values;
        byHour.set(hour, hourly);
      }
      const counted = atMs > dayStart ? [windows.day, windows.week] : [windows.week];
      for (const window of counted) {
        window.total += 1;
        if (row.ok === true) window.succeeded += 1;
      }
      for (const measure of source.measures) {
        const value = row[measure];
        if (value === null || value === undefined) continue;
        for (const window of counted) window.values[measure].push(Number(value));
        hourly[measure].push(Number(value));
      }
    }
  }
  const groups = new Map<string, Windowed<Aggregate<M>>>();
  for (const [group, windows] of byGroup) {
    groups.set(group, {
      day: aggregateOf(source.measures, windows.day),
      week: aggregateOf(source.measures, windows.week),
    });
  }
  // The hours of the charts lie within the 7 days (the first, partial hour of the window is left out).
  const hours = seriesHours(at);
  const hourly = Object.fromEntries(
    source.measures.map((measure) => {
      const of = hours.map((hour) =>
        nearestRank(byHour.get(hour)?.[measure].sort(ascending) ?? [], [0.5, 0.95]),
      );
      return [measure, { p50: of.map(([p50]) => p50 ?? null), p95: of.map(([, p95]) => p95 ?? null) }];
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
 * Every measured figure as of `at`: each source read in slices of its index. On the embedded database a
 * query holds the event loop while it runs: requests waiting go first between two (`rest`).
 */
export async function measureStatusFigures(
  database: Database,
  at: Date,
  rest: () => Promise<unknown> = async () => undefined,
): Promise<StatusFigures> {
  const orders = await measure(database, ORDERS, at, rest);
  await rest();
  const credits = await measure(database, CREDITS, at, rest);
  await rest();
  const consoles = await measure(database, CONSOLES, at, rest);
  await rest();
  const webhooks = await measure(database, WEBHOOKS, at, rest);
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
