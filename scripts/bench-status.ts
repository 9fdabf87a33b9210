/**
 * The public status page at the size of a busy deployment, on the production build. A month of what it reads is
 * seeded straight into the database (BENCH_ORDERS order outcomes, BENCH_CREDITS credited deposits,
 * BENCH_CONSOLES console sessions and BENCH_DELIVERIES webhook deliveries, spread evenly over 30 days, so about
 * a quarter fall in the 7-day window), then:
 *
 *  1. the computation of the figures, timed BENCH_COMPUTE_RUNS times in this process (p50 and max): what an
 *     app instance does once per STATUS_REFRESH_SECONDS;
 *  2. `GET /api/v1/status` in an open loop of BENCH_RATE requests a second (400), in windows of BENCH_SECONDS
 *     over BENCH_ROUNDS rounds, plain and revalidating with `If-None-Match` (304), with the app computing the
 *     figures again every BENCH_REFRESH seconds meanwhile (5), so the measuring includes recomputations:
 *     p50, p95, p99, max, errors and the app's CPU time per request (read from /proc, all its threads).
 *     Target: p99 <= 50 ms at 400 requests a second.
 *  3. the `/status` page (server-rendered HTML) in an open loop of BENCH_PAGE_RATE requests a second (50).
 *
 *   npm run build && npm run bench:status                               # embedded PGlite
 *   BENCH_DB=postgres BENCH_DATABASE_URL=postgres://... npm run bench:status  # PostgreSQL (wiped first)
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { startApp } from "../e2e/support/app-server";
import { openBenchDatabase } from "./bench-database";
import { appPidOf, cpuMs } from "./bench-host";
import { percentile } from "./percentile";
import { type OpenSample, openLoad, summarizeOpen } from "./read-load";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 40_000);
const CREDITS = Number(process.env.BENCH_CREDITS ?? 20_000);
const CONSOLES = Number(process.env.BENCH_CONSOLES ?? 10_000);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 60_000);
const COMPUTE_RUNS = Number(process.env.BENCH_COMPUTE_RUNS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 400);
const PAGE_RATE = Number(process.env.BENCH_PAGE_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const REFRESH = process.env.BENCH_REFRESH ?? "5";
const P99_TARGET_MS = 50;

const target = await openBenchDatabase(
  "postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_status",
  "vps-bench-status-",
);

// Loaded after the environment is set: the configuration is read once.
const { sql } = await import("drizzle-orm");
const { databaseHandle } = await import("@/lib/db/client");
const { measureStatusFigures } = await import("@/lib/status/figures");

const handle = await databaseHandle();
const database = handle.db;
const one = async (query: ReturnType<typeof sql>) =>
  Number(((await database.execute(query)) as unknown as { rows: { id: number }[] }).rows[0]?.id);

/** A month of what the status page reads, evenly spread: row i of n is i/n of 30 days old. */
async function seed() {
  const age = (n: number) => sql.raw(`now() - (i::float8 / ${n}) * interval '30 days'`);
  await database.execute(sql`INSERT INTO order_outcomes (location, os, ordered_at, finished_at, succeeded, ssh_answered_at)
    SELECT (ARRAY['nl','fr','ro','bg','se','is'])[1 + i % 6],
      (ARRAY['debian-13','debian-12','ubuntu-24.04','ubuntu-22.04','almalinux-10','almalinux-9'])[1 + (i / 6) % 6],
      t - make_interval(secs => 30 + i % 97), t, i % 50 <> 0,
      CASE WHEN i % 50 <> 0 THEN t - make_interval(secs => 1 + i % 5) END
    FROM generate_series(1, ${ORDERS}) i, LATERAL (SELECT ${age(ORDERS)}) x(t)`);
  const account = await one(
    sql`INSERT INTO accounts (login_token_hash) VALUES ('bench-status') RETURNING id`,
  );
  await database.execute(sql`INSERT INTO topups (ref, account_id, method, coin, network, amount_cents,
      deposit_address, deposit_units, rate_usd, rate_source, confirmations_required, status, created_at)
    SELECT 'bench-' || i, ${account}, 'deposit', (ARRAY['BTC','LTC','ETH','XMR','USDT','USDTTRC'])[1 + i % 6],
      'bench-' || i % 6, 2500, 'bench-address-' || i, 1000, 1, 'bench', 2, 'completed', ${age(CREDITS)}
    FROM generate_series(1, ${CREDITS}) i`);
  await database.execute(sql`INSERT INTO deposit_payments (topup_id, network, tx_hash, log_index, amount_units,
      block_number, confirmations, seen_at, confirmed_at, confirming_block_at)
    SELECT id, network, 'bench-tx-' || id, -1, 1000, 1, 2, created_at, created_at + interval '20 minutes',
      created_at + interval '20 minutes' - make_interval(secs => (id % 2000) / 1000.0)
    FROM topups WHERE account_id = ${account}`);
  const server =
    await one(sql`INSERT INTO servers (account_id, plan, location, os, hostname, cycle, price_cents,
      status, power_state, expires_at)
    VALUES (${account}, 'pup', 'nl', 'debian-13', 'bench-status', 'monthly', 400, 'active', 'running',
      now() + interval '30 days') RETURNING id`);
  await database.execute(sql`INSERT INTO console_sessions (account_id, server_id, ticket_hash, ticket_expires_at,
      requested_at, requested_from, opened_at, first_byte_at, closed_at, close_reason)
    SELECT ${account}, ${server}, 'bench-ticket-' || i, t + interval '30 seconds', t, '10.0.0.1',
      t + interval '300 milliseconds', t + make_interval(secs => 0.5 + (i % 10) / 10.0), t + interval '10 minutes',
      'ended'
    FROM generate_series(1, ${CONSOLES}) i, LATERAL (SELECT ${age(CONSOLES)}) x(t)`);
  const endpoint = await one(sql`INSERT INTO notification_endpoints (account_id, kind, url, event_types)
    VALUES (${account}, 'webhook', 'https://receiver.invalid/hook', ARRAY['server.active']) RETURNING id`);
  await database.execute(sql`INSERT INTO notification_events (public_id, account_id, type, payload, occurred_at)
    SELECT 'msg_bench_' || i, ${account}, 'server.active', '{}', ${age(DELIVERIES)}
    FROM generate_series(1, ${DELIVERIES}) i`);
  await database.execute(sql`INSERT INTO notification_deliveries (event_id, endpoint_id, state, attempts,
      created_at, delivered_at)
    SELECT id, ${endpoint}, CASE WHEN id % 100 = 0 THEN 'failed' ELSE 'delivered' END, 1, occurred_at,
      CASE WHEN id % 100 <> 0 THEN occurred_at + interval '200 milliseconds' END
    FROM notification_events WHERE account_id = ${account}`);
  await database.execute(sql`INSERT INTO notification_attempts (delivery_id, number, manual, queued_at, sent_at,
      duration_ms, response_status, succeeded)
    SELECT id, 1, false, created_at, created_at + make_interval(secs => (id % 300) / 1000.0), 150,
      CASE WHEN state = 'delivered' THEN 200 ELSE 500 END, state = 'delivered'
    FROM notification_deliveries WHERE endpoint_id = ${endpoint}`);
  await database.execute(sql`ANALYZE`);
}

const seedStart = performance.now();
await seed();
console.log(
  `seeded on ${target} in ${((performance.now() - seedStart) / 1000).toFixed(1)} s: ${ORDERS} order outcomes, ` +
    `${CREDITS} credits, ${CONSOLES} console sessions, ${DELIVERIES} webhook deliveries over 30 days`,
);

const computeMs: number[] = [];
let sample = await measureStatusFigures(database, new Date());
for (let run = 0; run < COMPUTE_RUNS; run++) {
  const start = performance.now();
  sample = await measureStatusFigures(database, new Date());
  computeMs.push(performance.now() - start);
}
const inWindow = [...sample.orders.values()].reduce((sum, figures) => sum + figures.week.total, 0);
console.log(
  `computing the figures (${inWindow} orders, ${sample.webhooks.week.total} deliveries in the 7 days): ` +
    `p50 ${percentile(computeMs, 50).toFixed(1)} ms, max ${Math.max(...computeMs).toFixed(1)} ms over ${COMPUTE_RUNS} runs`,
);
// The app takes the database over (an embedded one allows one process).
await handle.close();

const app = await startApp({
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  DATA_DIR: process.env.DATA_DIR ?? "",
  STATUS_REFRESH_SECONDS: REFRESH,
});
try {
  const json = `${app.url}/api/v1/status`;
  const first = await fetch(json);
  const etag = first.headers.get("etag") ?? "";
  console.log(`document: ${(await first.text()).length} bytes, ETag ${etag}`);
  const pid = appPidOf(app.url);
  /** The app's CPU time while `work` runs, and what `work` returns. */
  const withCpu = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const before = pid ? cpuMs(pid) : Number.NaN;
    const result = await work();
    return [result, (pid ? cpuMs(pid) : Number.NaN) - before];
  };
  await openLoad(json, undefined, WARMUP, RATE);
  const plain: OpenSample[] = [];
  const revalidated: OpenSample[] = [];
  const cpu = { plain: 0, revalidated: 0, page: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const [sample, used] = await withCpu(() => openLoad(json, undefined, SECONDS, RATE));
    plain.push(sample);
    cpu.plain += used;
    // The ETag of the document served now: it changes with each recomputation.
    const current = (await fetch(json, { method: "HEAD" })).headers.get("etag") ?? etag;
    const [again, usedAgain] = await withCpu(() =>
      openLoad(json, undefined, SECONDS, RATE, 10_000, { "if-none-match": current }),
    );
    revalidated.push(again);
    cpu.revalidated += usedAgain;
  }
  await openLoad(`${app.url}/status`, undefined, WARMUP, PAGE_RATE);
  const page: OpenSample[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [sample, used] = await withCpu(() => openLoad(`${app.url}/status`, undefined, SECONDS, PAGE_RATE));
    page.push(sample);
    cpu.page += used;
  }
  const rows = [
    { ...summarizeOpen(`GET /api/v1/status @ ${RATE}/s`, plain), cpuMs: cpu.plain, target: true },
    {
      ...summarizeOpen(`GET /api/v1/status, If-None-Match @ ${RATE}/s`, revalidated),
      cpuMs: cpu.revalidated,
      target: true,
    },
    { ...summarizeOpen(`GET /status (page) @ ${PAGE_RATE}/s`, page), cpuMs: cpu.page, target: false },
  ];
  console.log(
    `open loop, ${ROUNDS} x ${SECONDS} s each, figures recomputed every ${REFRESH} s meanwhile ` +
      `(load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}):`,
  );
  console.log(
    "route                                          requests   p50 ms   p95 ms   p99 ms   max ms  errors  CPU ms/req",
  );
  for (const row of rows) {
    const verdict = row.target ? (row.p99 <= P99_TARGET_MS && row.errors === 0 ? "  ok" : "  MISSED") : "";
    console.log(
      `${row.name.padEnd(46)} ${String(row.requests).padStart(8)} ${row.p50.toFixed(1).padStart(8)} ` +
        `${row.p95.toFixed(1).padStart(8)} ${row.p99.toFixed(1).padStart(8)} ${row.max.toFixed(1).padStart(8)} ` +
        `${String(row.errors).padStart(7)} ${(row.cpuMs / row.requests).toFixed(2).padStart(11)}${verdict}`,
    );
  }
  console.log(`target: p99 <= ${P99_TARGET_MS} ms for the JSON at ${RATE} requests a second`);
} finally {
  await app.stop();
}
