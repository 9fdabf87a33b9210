/**
 * Reads under background load, on the production build, in one of two modes. Both measure every GET route
 * of the API while the server lifecycle works through 520 servers that have just come due, the deposit
 * watcher follows 505 pending top-ups (each holding a simulated partial payment), the notification worker
 * delivers to a webhook and usage metrics are sampled.
 *
 * Open loop (BENCH_MODE=open): each route gets BENCH_RATE requests a second (400) on a fixed schedule, in
 * windows of BENCH_SECONDS, routes alternating over BENCH_ROUNDS rounds. A request's latency runs from the
 * moment it was due, so waiting for a connection or for the server counts. Prints, per route, requests,
 * p50, p95, p99, max and errors, and the app's event-loop delay over the measuring.
 * Target: every GET p99 <= 50 ms at 400 requests a second.
 *
 * Closed loop (the default): every route at 32 connections. Prints req/s, p50 and p99 per route, and each
 * route's throughput as a share of /health's. The p99 is given for the worst 3 s window and for the whole
 * run, each also without each connection's first answer, as a window opens its 32 connections at once.
 * Targets: every GET p99 <= 150 ms; GET /servers (20 servers) and GET /servers/{id} >= 0.7x /health.
 *
 *   npm run bench:reads                                   # embedded PGlite
 *   BENCH_DB=postgres npm run bench:reads                 # PostgreSQL at BENCH_DATABASE_URL (wiped first)
 *   BENCH_MODE=open BENCH_RATE=400 npm run bench:reads    # the open loop
 *   BENCH_SECONDS=3 BENCH_ROUNDS=3 BENCH_WARMUP=3 BENCH_CONNECTIONS=32 BENCH_PORT=3650 npm run bench:reads
 *   BENCH_KEY=scoped npm run bench:reads                  # the routes read with a scoped key (below)
 *
 * BENCH_KEY=scoped reads every route with a key holding only the scopes they need, limited to this machine's
 * addresses and the 20 measured servers, with an expiry and a spend cap: every check such a key adds is in
 * the figures (compare with the default, the account's key with every right).
 *
 * How the load is made: servers are ordered with a provision delay of PROVISION_DELAY seconds, then the
 * test clock is moved forward by that much, so all 520 builds fall due at once, right before measuring.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startApp } from "../e2e/support/app-server";
import { resetPostgres } from "../e2e/support/reset-postgres";
import { apiCall, startWebhookSink } from "./api-call";
import { percentile } from "./percentile";
import { load, type OpenSample, openLoad, type Sample, summarize, summarizeOpen } from "./read-load";

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);
const target = process.env.BENCH_DB ?? "pglite";
const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? "postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_reads";
const port = process.env.BENCH_PORT ?? "3650";
const mode = process.env.BENCH_MODE === "open" ? "open" : "closed";
const rate = Number(process.env.BENCH_RATE ?? 400);
const keyMode = process.env.BENCH_KEY === "scoped" ? "scoped" : "full";
const OPEN_P99_TARGET_MS = 50;
const BACKGROUND_ACCOUNTS = 50;
const SERVERS_PER_BACKGROUND_ACCOUNT = 10;
const PENDING_PER_ACCOUNT = 10;
const MEASURED_SERVERS = 20;
const PROVISION_DELAY = 600;
const P99_TARGET_MS = 150;
const SHARE_TARGET = 0.7;

let base = "";
let ipCounter = 0;
/** Each caller its own client address, so per-address limits never get in the way of seeding. */
const nextIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

const call = (path: string, options: { method?: string; key?: string; body?: unknown } = {}) =>
  apiCall(base, path, { ...options, ip: nextIp() });

/** Runs `task` for 0..count-1 with at most `limit` at once. */
async function inParallel(count: number, limit: number, task: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function newFundedAccount(usd: number): Promise<string> {
  const { api_key: key } = (await call("/account", { method: "POST" })) as { api_key: string };
  const { ref } = (await call("/topups", { method: "POST", key, body: { amount: usd, coin: "BTC" } })) as {
    ref: string;
  };
  await call(`/demo/topups/${ref}/pay`, { method: "POST", key, body: {} });
  const deadline = Date.now() + 120_000;
  while ((await call(`/topups/${ref}`, { key })).status !== "completed") {
    if (Date.now() > deadline) throw new Error(`funding top-up ${ref} did not complete`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return key;
}

/** Fills the account's pending top-up slots, each with a small simulated payment: pending, and watched. */
async function pendingTopups(key: string, count: number): Promise<string[]> {
  const refs: string[] = [];
  for (let i = 0; i < count; i++) {
    const { ref } = (await call("/topups", {
      method: "POST",
      key,
      body: { amount: 50, coin: "USDTTRC" },
    })) as {
      ref: string;
    };
    await call(`/demo/topups/${ref}/pay`, { method: "POST", key, body: { amount: "1" } });
    refs.push(ref);
  }
  return refs;
}

async function orderServers(key: string, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = await call("/servers", {
      method: "POST",
      key,
      body: { plan: "pup", location: "nl", os: "debian-12", cycle: "monthly", auto_renew: true },
    });
    ids.push(server.id as number);
  }
  return ids;
}

/** A key that reads what the measured routes show and nothing more, from this machine, for these servers. */
async function scopedReader(key: string, serverIds: number[]): Promise<string> {
  const created = await call("/keys", {
    method: "POST",
    key,
    body: {
      name: "bench reader",
      scopes: [
        "servers:read",
        "servers:credentials",
        "topups:read",
        "account:read",
        "keys:read",
        "webhooks:read",
      ],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      allowed_networks: ["127.0.0.0/8", "::1/128", "10.9.0.0/16"],
      server_ids: serverIds,
      spend_cap: { amount_usd: 10, period: "month" },
    },
  });
  return created.api_key as string;
}

/** One window of `path` at the run's connections (scripts/read-load.ts). */
const loadRoute = (path: string, key: string | undefined, duration: number) =>
  load(`${base}${path}`, key, duration, connections);

async function stillProvisioning(keys: string[]): Promise<number> {
  let count = 0;
  for (const key of keys) {
    const page = (await call("/servers?limit=100", { key })) as { servers: { status: string }[] };
    count += page.servers.filter((server) => server.status === "provisioning").length;
  }
  return count;
}

async function main() {
  if (!existsSync(".next/BUILD_ID")) execSync("npm run build", { stdio: "inherit" });
  const dataDir = mkdtempSync(path.join(tmpdir(), "vps-bench-reads-"));
  const env: Record<string, string> = {
    PORT: port,
    ENABLE_TEST_CLOCK: "1",
    PROVISION_DELAY_SECONDS: String(PROVISION_DELAY),
    WATCHER_INTERVAL_MS: process.env.WATCHER_INTERVAL_MS ?? "1000",
    RATE_LIMIT_ACCOUNT_CREATE: "1000/1h",
    NOTIFY_TEST_ALLOW_LOOPBACK: "1",
    DATA_DIR: dataDir,
    LOOP_PROBE_FILE: path.join(dataDir, "loop-probe.jsonl"),
    // With BENCH_PROFILE=file, SIGUSR2 to the app starts and then stops a CPU profile (scripts/loop-probe.cjs).
    ...(process.env.BENCH_PROFILE ? { LOOP_PROBE_PROFILE: process.env.BENCH_PROFILE } : {}),
    NODE_OPTIONS: `--require ${path.resolve(import.meta.dirname, "loop-probe.cjs")}`,
  };
  if (target === "postgres") {
    await resetPostgres(databaseUrl);
    env.DATABASE_URL = databaseUrl;
  }
  const app = await startApp(env);
  base = app.url;
  // The webhook's receiver: the notification worker delivers to it throughout the run.
  const receiver = await startWebhookSink();
  try {
    const seedStarted = Date.now();
    const measured = await newFundedAccount(200);
    const backgroundKeys: string[] = [];
    await inParallel(BACKGROUND_ACCOUNTS, 8, async () => {
      backgroundKeys.push(await newFundedAccount(100));
    });
    const serverIds = await orderServers(measured, MEASURED_SERVERS);
    const measuredRefs = await pendingTopups(measured, 5);
    await inParallel(backgroundKeys.length, 8, async (index) => {
      const key = backgroundKeys[index] as string;
      await orderServers(key, SERVERS_PER_BACKGROUND_ACCOUNT);
      await pendingTopups(key, PENDING_PER_ACCOUNT);
    });
    await call("/keys", { method: "POST", key: measured, body: { name: "bench" } });
    const webhook = await call("/webhooks", {
      method: "POST",
      key: measured,
      body: { url: `${receiver.url}/hook` },
    });
    await call(`/webhooks/${webhook.id}/test`, { method: "POST", key: measured });
    console.log(
      `seeded in ${((Date.now() - seedStarted) / 1000).toFixed(0)} s: ${1 + BACKGROUND_ACCOUNTS} accounts, ` +
        `${MEASURED_SERVERS + BACKGROUND_ACCOUNTS * SERVERS_PER_BACKGROUND_ACCOUNT} servers, ` +
        `${5 + BACKGROUND_ACCOUNTS * PENDING_PER_ACCOUNT} pending top-ups with a partial payment`,
    );

    const reader = keyMode === "scoped" ? await scopedReader(measured, serverIds) : measured;
    const serverId = serverIds[serverIds.length - 1];
    const routes: Record<string, { path: string; key?: string }> = {
      "/health": { path: "/api/v1/health" },
      "/catalog": { path: "/api/v1/catalog" },
      "/account": { path: "/api/v1/account", key: reader },
      "/servers": { path: "/api/v1/servers", key: reader },
      "/servers/{id}": { path: `/api/v1/servers/${serverId}`, key: reader },
      "/servers/{id}/credentials": { path: `/api/v1/servers/${serverId}/credentials`, key: reader },
      "/topups": { path: "/api/v1/topups", key: reader },
      "/topups/{ref}": { path: `/api/v1/topups/${measuredRefs[0]}`, key: reader },
      "/keys": { path: "/api/v1/keys", key: reader },
      "/sessions": { path: "/api/v1/sessions", key: reader },
      "/account/recovery-codes": { path: "/api/v1/account/recovery-codes", key: reader },
      "/servers/{id}/metrics": { path: `/api/v1/servers/${serverId}/metrics`, key: reader },
      "/servers/{id}/expiry-warnings": { path: `/api/v1/servers/${serverId}/expiry-warnings`, key: reader },
      "/servers/{id}/snapshots": { path: `/api/v1/servers/${serverId}/snapshots`, key: reader },
      "/webhooks": { path: "/api/v1/webhooks", key: reader },
      "/webhooks/{id}": { path: `/api/v1/webhooks/${webhook.id}`, key: reader },
      "/webhooks/{id}/deliveries": { path: `/api/v1/webhooks/${webhook.id}/deliveries`, key: reader },
      "/openapi.json": { path: "/api/v1/openapi.json" },
    };
    if (mode === "open") {
      await measureOpen(routes, [measured, ...backgroundKeys], app.dataDir);
      return;
    }
    // Warm-up: the first seconds after start run unoptimised code (p99 several times the steady state).
    for (const route of Object.values(routes)) await loadRoute(route.path, route.key, warmup);

    // All builds fall due now: the lifecycle worker has 520 servers to build while the routes are measured.
    await call("/demo/clock", { method: "POST", body: { advance_seconds: PROVISION_DELAY } });
    const measureStarted = Date.now();
    const samples = new Map<string, Sample[]>(Object.keys(routes).map((name) => [name, []]));
    // Routes alternate within each round, so the worker's progress touches all of them alike.
    for (let round = 0; round < rounds; round++) {
      for (const [name, route] of Object.entries(routes)) {
        const sample = await loadRoute(route.path, route.key, seconds);
        samples.get(name)?.push(sample);
        if (process.env.BENCH_VERBOSE) {
          const at = ((Date.now() - measureStarted) / 1000).toFixed(0);
          console.log(
            `round ${round + 1} at ${at} s ${name}: ${sample.rps.toFixed(0)} req/s, p99 ${sample.p99} ms, ` +
              `on open connections ${sample.p99Open} ms`,
          );
        }
      }
    }
    const measureSeconds = (Date.now() - measureStarted) / 1000;
    const left = await stillProvisioning([measured, ...backgroundKeys]);

    const summary = [...samples].map(([name, list]) => summarize(name, list));
    const health = summary.find((s) => s.name === "/health")?.rps ?? 1;
    console.log(
      `\n${target === "postgres" ? "PostgreSQL" : "PGlite"}, ${keyMode} key, ${connections} connections, ${rounds} x ${seconds} s per route, ` +
        `production build; ${measureSeconds.toFixed(0)} s of measuring, ${left} of 520 servers still provisioning at the end`,
    );
    console.log(
      "| route | req/s | p50 ms | p99 ms, worst window | same, open connections | p99 ms, whole run | same, open connections | share of /health | failed |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const s of summary) {
      console.log(
        `| GET ${s.name} | ${s.rps.toFixed(0)} | ${s.p50} | ${s.p99} | ${s.p99Open} | ${s.p99Run} | ${s.p99RunOpen} | ${((s.rps / health) * 100).toFixed(0)}% | ${s.failures} |`,
      );
    }
    const behind = summary
      .filter((s) => (s.name === "/servers" || s.name === "/servers/{id}") && s.rps < SHARE_TARGET * health)
      .map((s) => s.name);
    const failed = summary.filter((s) => s.failures > 0).map((s) => s.name);
    const p99Figures = [
      ["worst-window p99", "p99"],
      ["worst-window p99 on open connections", "p99Open"],
      ["whole-run p99", "p99Run"],
      ["whole-run p99 on open connections", "p99RunOpen"],
    ] as const;
    for (const [label, field] of p99Figures) {
      const over = summary.filter((s) => s[field] > P99_TARGET_MS).map((s) => s.name);
      console.log(
        over.length
          ? `${label} above ${P99_TARGET_MS} ms: ${over.join(", ")}`
          : `every ${label} <= ${P99_TARGET_MS} ms`,
      );
    }
    console.log(
      behind.length
        ? `below ${SHARE_TARGET * 100}% of /health: ${behind.join(", ")}`
        : `/servers and /servers/{id} at or above ${SHARE_TARGET * 100}% of /health`,
    );
    if (failed.length) console.log(`failed requests on: ${failed.join(", ")}`);
  } finally {
    if (process.env.BENCH_LOG) console.log(app.logs());
    receiver.close();
    await app.stop();
  }
}

/** The app's event-loop delay per second (scripts/loop-probe.cjs) between two moments. */
function loopDelay(dataDir: string, from: number, to: number) {
  const seconds = readFileSync(path.join(dataDir, "loop-probe.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { at: number; p50: number; p99: number; max: number })
    .filter((second) => second.at > from && second.at <= to + 1000);
  return {
    p99: percentile(
      seconds.map((second) => second.p99),
      50,
    ),
    worstP99: Math.max(...seconds.map((second) => second.p99)),
    max: Math.max(...seconds.map((second) => second.max)),
  };
}

/** A latency as the table shows it: a dash for a route that got no answer at all. */
const shown = (ms: number) => (Number.isNaN(ms) ? "–" : String(ms));

/** The open loop: every route at `rate` a second, routes alternating within each round. */
async function measureOpen(
  routes: Record<string, { path: string; key?: string }>,
  keys: string[],
  dataDir: string,
) {
  const openRoute = (route: { path: string; key?: string }, duration: number) =>
    openLoad(`${base}${route.path}`, route.key, duration, rate);
  for (const route of Object.values(routes)) await openRoute(route, warmup);
  await call("/demo/clock", { method: "POST", body: { advance_seconds: PROVISION_DELAY } });
  const measureStarted = Date.now();
  const samples = new Map<string, OpenSample[]>(Object.keys(routes).map((name) => [name, []]));
  const slowest = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, route] of Object.entries(routes)) {
      const started = Date.now();
      const sample = await openRoute(route, seconds);
      samples.get(name)?.push(sample);
      const loop = loopDelay(dataDir, started, Date.now());
      slowest.set(name, Math.max(slowest.get(name) ?? 0, loop.max));
      if (process.env.BENCH_VERBOSE) {
        const at = ((Date.now() - measureStarted) / 1000).toFixed(0);
        console.log(
          `round ${round + 1} at ${at} s ${name}: p99 ${percentile(sample.latencies, 99).toFixed(1)} ms, ` +
            `max ${Math.max(...sample.latencies).toFixed(1)} ms, ${sample.errors} errors; event loop p99 ` +
            `${loop.p99} ms (worst second ${loop.worstP99} ms), max ${loop.max} ms`,
        );
      }
    }
  }
  const measureSeconds = (Date.now() - measureStarted) / 1000;
  const left = await stillProvisioning(keys);
  const loop = loopDelay(dataDir, measureStarted, Date.now());
  const summary = [...samples].map(([name, list]) => summarizeOpen(name, list));
  console.log(
    `\n${target === "postgres" ? "PostgreSQL" : "PGlite"}, ${keyMode} key, open loop at ${rate} requests/s, ${rounds} x ${seconds} s per route, ` +
      `production build; ${measureSeconds.toFixed(0)} s of measuring, ${left} of 520 servers still provisioning at the end; ` +
      `event-loop delay: p99 ${loop.p99} ms in the median second, ${loop.worstP99} ms in the worst, max ${loop.max} ms`,
  );
  console.log("| route | requests | p50 ms | p95 ms | p99 ms | max ms | errors | event-loop max ms |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const s of summary) {
    console.log(
      `| GET ${s.name} | ${s.requests} | ${shown(s.p50)} | ${shown(s.p95)} | ${shown(s.p99)} | ${shown(s.max)} | ${s.errors} | ${slowest.get(s.name)} |`,
    );
  }
  const over = summary.filter((s) => !(s.p99 <= OPEN_P99_TARGET_MS)).map((s) => s.name);
  const failed = summary.filter((s) => s.errors > 0).map((s) => s.name);
  console.log(
    over.length
      ? `p99 above ${OPEN_P99_TARGET_MS} ms: ${over.join(", ")}`
      : `every p99 <= ${OPEN_P99_TARGET_MS} ms`,
  );
  if (failed.length) console.log(`failed requests on: ${failed.join(", ")}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
