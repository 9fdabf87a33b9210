/**
 * Notifications, end to end on the production build, to a receiver on loopback that verifies every signature:
 *
 * 1. Latency, event committed -> delivered: test events sent one at a time (BENCH_RATE a second), each
 *    measured from its `timestamp` (set inside the transaction that records it) to its arrival. On PGlite with
 *    one instance, then on PostgreSQL with two. Target: p99 <= 1 s.
 * 2. Throughput: BENCH_EVENTS (10,000) events committed at once on PostgreSQL, drained by two instances;
 *    every webhook-id must arrive exactly once (nothing lost, nothing doubled). Meanwhile BENCH_READERS
 *    clients read GET /servers on both instances; their latency is compared with the same reads when idle.
 *
 *   npm run bench:notifications
 *   BENCH_DATABASE_URL=postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_notify_bench   (wiped first)
 *   BENCH_EVENTS=10000 BENCH_LATENCY_EVENTS=200 BENCH_RATE=20 BENCH_READERS=8 npm run bench:notifications
 */
import { execSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { type RunningApp, startApp } from "../e2e/support/app-server";
import { resetPostgres } from "../e2e/support/reset-postgres";
import { type Receiver, startReceiver, verified } from "../e2e/support/webhook-receiver";
import { apiCall } from "./api-call";
import { percentile } from "./percentile";

const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? "postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_notify_bench";
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const READERS = Number(process.env.BENCH_READERS ?? 8);
const LATENCY_TARGET_MS = 1_000;

const APP_ENV = {
  // Demo mode (a receiver on loopback needs the test-only allowance), and limits out of the way.
  NOTIFY_TEST_ALLOW_LOOPBACK: "1",
  RATE_LIMIT_NOTIFICATION_SENDS: "1000000/10m",
  RATE_LIMIT_ACCOUNT_CREATE: "1000/1h",
  PROVISION_DELAY_SECONDS: "1",
};

let ipCounter = 0;
const nextIp = () => `10.8.${Math.floor(++ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;

const call = (base: string, route: string, options: { method?: string; key?: string; body?: unknown } = {}) =>
  apiCall(base, route, { ...options, ip: nextIp() });

/** An account with a webhook to `receiver` at `route`; returns its key, webhook id and secret. */
async function webhookAccount(base: string, receiver: Receiver, route: string) {
  const key = (await call(base, "/account", { method: "POST" })).api_key as string;
  const created = await call(base, "/webhooks", {
    method: "POST",
    key,
    body: { url: `${receiver.url}${route}` },
  });
  return { key, id: created.id as number, secret: created.secret as string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const ms = (value: number) => `${Math.round(value)} ms`;

/** Test events sent one at a time at RATE a second, alternating over `bases`; latency from commit to arrival. */
async function measureLatency(label: string, bases: string[], receiver: Receiver) {
  const route = `/latency-${bases.length}`;
  const account = await webhookAccount(bases[0] ?? "", receiver, route);
  const arrivals = () => receiver.received.filter((request) => request.path === route);
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const started = Date.now();
    await call(bases[i % bases.length] ?? "", `/webhooks/${account.id}/test`, {
      method: "POST",
      key: account.key,
    });
    await sleep(Math.max(0, 1000 / RATE - (Date.now() - started)));
  }
  await waitFor(() => arrivals().length >= LATENCY_EVENTS, 300_000, "the latency events");
  const latencies = arrivals().map(
    (request) => request.at - Date.parse(verified(request, account.secret).timestamp),
  );
  const p99 = percentile(latencies, 99);
  console.log(
    `${label}: ${latencies.length} events at ${RATE}/s, committed -> delivered p50 ${ms(percentile(latencies, 50))}, ` +
      `p99 ${ms(p99)}, max ${ms(Math.max(...latencies))} (target p99 <= ${LATENCY_TARGET_MS} ms: ${p99 <= LATENCY_TARGET_MS ? "met" : "MISSED"})`,
  );
}

/** READERS clients reading GET /servers in turn on `bases` until `stop()`; every latency in ms. */
async function readWhile(bases: string[], key: string, stop: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: READERS }, async (_, reader) => {
      let i = reader;
      while (!stop()) {
        const started = performance.now();
        // A fresh connection each time: a pooled one the server closed while idle would fail the read.
        const response = await fetch(`${bases[i++ % bases.length]}/api/v1/servers`, {
          headers: {
            authorization: `Bearer ${key}`,
            "x-forwarded-for": `10.7.0.${reader + 1}`,
            connection: "close",
          },
        });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`GET /servers: ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

/** EVENTS events committed in one statement each for the events and their deliveries, due at once. */
async function commitEvents(accountId: number, endpointId: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = Date.now();
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO notification_events (public_id, account_id, type, payload, occurred_at)
       SELECT 'evt_bench_' || n, $1, 'webhook.test',
         json_build_object('type', 'webhook.test', 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', json_build_object('webhook_id', $2::int, 'message', 'bench ' || n))::text, now()
       FROM generate_series(1, $3::int) AS n`,
      [accountId, endpointId, EVENTS],
    );
    await client.query(
      `INSERT INTO notification_deliveries (event_id, endpoint_id, created_at, next_attempt_at)
       SELECT id, $1, now(), now() FROM notification_events WHERE public_id LIKE 'evt_bench_%'`,
      [endpointId],
    );
    await client.query("COMMIT");
    return Date.now() - started;
  } finally {
    await client.end();
  }
}

async function main() {
  console.log(`load before: ${execSync("uptime").toString().trim()}`);
  const receiver = await startReceiver();
  try {
    // 1. PGlite, one instance.
    let app: RunningApp = await startApp({ ...APP_ENV });
    try {
      await measureLatency("pglite, 1 instance", [app.url], receiver);
    } finally {
      await app.stop();
    }

    // 2. PostgreSQL, two instances sharing one DATA_DIR (the same demo secrets).
    await resetPostgres(databaseUrl);
    const env = {
      ...APP_ENV,
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-bench-notify-")),
    };
    app = await startApp(env);
    const second = await startApp(env);
    const bases = [app.url, second.url];
    try {
      await measureLatency("postgres, 2 instances", bases, receiver);

      const reader = (await call(app.url, "/account", { method: "POST" })).api_key as string;
      let idleDone = false;
      setTimeout(() => {
        idleDone = true;
      }, 5_000);
      const idle = await readWhile(bases, reader, () => idleDone);

      const account = await webhookAccount(app.url, receiver, "/drain");
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query("SELECT account_id FROM notification_endpoints WHERE id = $1", [
        account.id,
      ]);
      await client.end();
      const arrivals = () => receiver.received.filter((request) => request.path === "/drain");
      const committing = commitEvents(rows[0].account_id as number, account.id);
      const started = Date.now();
      let drained = false;
      const busyReads = readWhile(bases, reader, () => drained);
      const commitMs = await committing;
      await waitFor(() => arrivals().length >= EVENTS, 600_000, "the drain");
      const drainMs = Date.now() - started;
      await sleep(2_000);
      drained = true;
      const busy = await busyReads;

      const ids = new Map<string, number>();
      for (const request of arrivals()) {
        verified(request, account.secret);
        const id = String(request.headers["webhook-id"]);
        ids.set(id, (ids.get(id) ?? 0) + 1);
      }
      const doubled = [...ids.values()].filter((count) => count > 1).length;
      const lost = EVENTS - ids.size;
      console.log(
        `postgres, 2 instances: ${EVENTS} events committed in ${ms(commitMs)}, all delivered in ${(drainMs / 1000).toFixed(1)} s ` +
          `(${Math.round((EVENTS / drainMs) * 1000)} events/s); ${arrivals().length} requests, ${ids.size} distinct webhook-ids, ` +
          `${lost} lost, ${doubled} doubled; every signature verified`,
      );
      console.log(
        `GET /servers with ${READERS} readers: idle p50 ${ms(percentile(idle, 50))} p99 ${ms(percentile(idle, 99))} ` +
          `(${idle.length} reads in 5 s); while draining p50 ${ms(percentile(busy, 50))} p99 ${ms(percentile(busy, 99))} ` +
          `(${busy.length} reads in ${(drainMs / 1000).toFixed(1)} s)`,
      );
      if (lost > 0 || doubled > 0) process.exitCode = 1;
    } finally {
      await Promise.all([app.stop(), second.stop()]);
    }
  } finally {
    await receiver.close();
  }
  console.log(`load after: ${execSync("uptime").toString().trim()}`);
}

await main();
