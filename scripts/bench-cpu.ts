/**
 * CPU per request: what each GET route of the API costs the app's one thread, beside its latency, on the
 * production build. One account holds twenty of everything a list shows (servers, top-ups, keys, webhooks'
 * deliveries, snapshots where the plan allows), so a list answer is a list of twenty.
 *
 * Each route gets an open loop of BENCH_RATE requests a second (400) for BENCH_SECONDS (5), after a warm-up.
 * The app's CPU time (user + system, read from /proc for its process) over the window, less what the idle app
 * used over as long (its background passes), divided by the requests answered, is the route's CPU per request.
 * Latency runs from the moment a request was due. Targets: CPU <= 1 ms and p99 <= 50 ms for every route.
 *
 *   npm run bench:cpu                                    # embedded PGlite
 *   BENCH_DB=postgres npm run bench:cpu                  # PostgreSQL at BENCH_DATABASE_URL (wiped first)
 *   BENCH_PROFILE=worst.cpuprofile npm run bench:cpu     # then profiles the costliest route: its top functions
 *   BENCH_ROUTES=/servers,/topups npm run bench:cpu      # only these routes
 *   npm run bench:growth:reads                           # the same, on an app grown to BENCH_GROWN
 *
 * With BENCH_GROWN=servers,topups (10000,100000 for bench:growth:reads), once the account is seeded the app is
 * stopped, its database grown to that many servers and paid top-ups in other accounts, with a month of usage
 * per running server (scripts/grow-state.ts), and started again before anything is measured. The app's
 * event loop is watched throughout (scripts/loop-probe.cjs): each route's row gives the longest stall and
 * the worst one-second p99 of the loop's delay during its window.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type RunningApp, startApp } from "../e2e/support/app-server";
import { resetPostgres } from "../e2e/support/reset-postgres";
import { apiCall, startWebhookSink } from "./api-call";
import { growState, openGrowthTarget } from "./grow-state";
import { openLoad, summarizeOpen } from "./read-load";

const target = process.env.BENCH_DB ?? "pglite";
const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? "postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_cpu";
const rate = Number(process.env.BENCH_RATE ?? 400);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const warmup = Number(process.env.BENCH_WARMUP ?? 2);
const profileFile = process.env.BENCH_PROFILE;
const only = process.env.BENCH_ROUTES?.split(",").map((route) => route.trim());
const [grownServers, grownTopups] = (process.env.BENCH_GROWN ?? "").split(",").map(Number);
const grown = grownServers ? { servers: grownServers, topups: grownTopups ?? 0 } : undefined;
/** The app samples usage once a minute (METRICS_INTERVAL_SECONDS): a grown app's idle cost is read over one. */
const IDLE_SECONDS = grown ? 60 : seconds;
const CPU_TARGET_MS = 1;
const P99_TARGET_MS = 50;
const LIST_SIZE = 20;
const LOOP_TARGET_MS = 20;
/** scripts/loop-probe.cjs samples the event loop's delay every 5 ms. */
const PROBE_TICK_MS = 5;
/** Linux counts a process's CPU time in clock ticks of 10 ms (USER_HZ 100). */
const TICK_MS = 10;

let base = "";
let ipCounter = 0;
const nextIp = () => `10.8.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;
const call = (route: string, options: { method?: string; key?: string; body?: unknown } = {}) =>
  apiCall(base, route, { ...options, ip: nextIp() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The process's CPU time so far (user + system), in ms. */
function cpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in 180 s`);
    await sleep(250);
  }
}

/** A paid deposit top-up (the demo's simulated payment): completed, and in the account's history. */
async function paidTopup(key: string, usd: number): Promise<string> {
  const { ref } = (await call("/topups", { method: "POST", key, body: { amount: usd, coin: "BTC" } })) as {
    ref: string;
  };
  await call(`/demo/topups/${ref}/pay`, { method: "POST", key, body: {} });
  await until(
    `top-up ${ref}`,
    () => call(`/topups/${ref}`, { key }),
    (t) => t.status === "completed",
  );
  return ref;
}

/** The account the routes read: twenty servers, top-ups, keys and deliveries, a webhook, snapshots. */
async function seed(receiverUrl: string) {
  const { api_key: key } = (await call("/account", { method: "POST" })) as { api_key: string };
  const refs: string[] = [];
  for (let i = 0; i < LIST_SIZE; i++) refs.push(await paidTopup(key, i === 0 ? 400 : 25));
  const serverIds: number[] = [];
  for (let i = 0; i < LIST_SIZE; i++) {
    const server = await call("/servers", {
      method: "POST",
      key,
      body: { plan: "pup", location: "nl", os: "debian-12" },
    });
    serverIds.push(server.id as number);
  }
  const serverId = serverIds[0] as number;
  await until(
    `server ${serverId}`,
    () => call(`/servers/${serverId}`, { key }),
    (s) => s.status === "active",
  );
  for (let i = 1; i < LIST_SIZE; i++)
    await call("/keys", { method: "POST", key, body: { name: `key ${i}` } });
  // Snapshots up to the plan's limit, one at a time (each is a host operation on the server).
  let snapshotId: number | undefined;
  for (;;) {
    const taken = await fetch(`${base}/api/v1/servers/${serverId}/snapshots`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "x-forwarded-for": nextIp(),
      },
      body: "{}",
    });
    if (taken.status !== 202) break;
    const id = ((await taken.json()) as { id: number }).id;
    snapshotId ??= id;
    await until(
      `snapshot ${id}`,
      () => call(`/servers/${serverId}/snapshots/${id}`, { key }),
      (s) => s.state === "available",
    );
    const listed = (await call(`/servers/${serverId}/snapshots`, { key })) as { snapshots: unknown[] };
    if (listed.snapshots.length >= LIST_SIZE) break;
  }
  // A webhook whose deliveries fill a page: test sends, delivered to a receiver on loopback.
  const webhook = await call("/webhooks", { method: "POST", key, body: { url: `${receiverUrl}/hook` } });
  for (let i = 0; i < LIST_SIZE; i++) await call(`/webhooks/${webhook.id}/test`, { method: "POST", key });
  const rdns = (await call(`/servers/${serverId}/rdns`, { key })) as { records: { address: string }[] };
  return {
    key,
    refs,
    serverId,
    snapshotId,
    webhookId: webhook.id as number,
    address: rdns.records[0]?.address,
  };
}

async function main() {
  if (!existsSync(".next/BUILD_ID")) execSync("npm run build", { stdio: "inherit" });
  const dataDir = mkdtempSync(path.join(tmpdir(), "vps-bench-cpu-"));
  const loopFile = path.join(dataDir, "loop-probe.jsonl");
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PROVISION_DELAY_SECONDS: "1",
    // Seeding waits on twenty paid top-ups: the demo watcher looks every second, not every five.
    WATCHER_INTERVAL_MS: "1000",
    RATE_LIMIT_ACCOUNT_CREATE: "1000/1h",
    RATE_LIMIT_DEPOSIT_TOPUPS: "100/1h",
    RATE_LIMIT_NOTIFICATION_SENDS: "100/1h",
    NOTIFY_TEST_ALLOW_LOOPBACK: "1",
    LOOP_PROBE_FILE: loopFile,
    NODE_OPTIONS: `--require ${path.resolve(import.meta.dirname, "loop-probe.cjs")}`,
    ...(profileFile ? { LOOP_PROBE_PROFILE: path.resolve(profileFile) } : {}),
  };
  if (target === "postgres") {
    await resetPostgres(databaseUrl);
    env.DATABASE_URL = databaseUrl;
  }
  let app: RunningApp = await startApp(env);
  base = app.url;
  const receiver = await startWebhookSink();
  try {
    const seeded = await seed(receiver.url);
    const { key, serverId } = seeded;
    if (grown) {
      const { user_id: accountId } = (await call("/account", { key })) as { user_id: number };
      await app.stop();
      console.log(`growing the database (${target}, data directory ${dataDir}):`);
      const database = await openGrowthTarget({ url: env.DATABASE_URL, dataDir });
      try {
        await growState(
          database,
          { accountId, serverId, topupRef: seeded.refs[1] as string },
          { accounts: Math.ceil(grown.servers / 10), ...grown },
        );
      } finally {
        await database.close();
      }
      app = await startApp(env);
      base = app.url;
    }
    const server = `/servers/${serverId}`;
    const routes: Record<string, { path: string; key?: string }> = {
      "/health": { path: "/health" },
      "/status": { path: "/status" },
      "/catalog": { path: "/catalog" },
      "/openapi.json": { path: "/openapi.json" },
      "/account": { path: "/account", key },
      "/account/recovery-codes": { path: "/account/recovery-codes", key },
      "/keys": { path: "/keys", key },
      "/keys/current": { path: "/keys/current", key },
      "/sessions": { path: "/sessions", key },
      "/servers": { path: "/servers", key },
      "/servers/{id}": { path: server, key },
      "/servers/{id}/credentials": { path: `${server}/credentials`, key },
      "/servers/{id}/expiry-warnings": { path: `${server}/expiry-warnings`, key },
      "/servers/{id}/metrics": { path: `${server}/metrics`, key },
      "/servers/{id}/firewall": { path: `${server}/firewall`, key },
      "/servers/{id}/rdns": { path: `${server}/rdns`, key },
      ...(seeded.address
        ? { "/servers/{id}/rdns/{address}": { path: `${server}/rdns/${seeded.address}`, key } }
        : {}),
      "/servers/{id}/resizes": { path: `${server}/resizes`, key },
      "/servers/{id}/snapshots": { path: `${server}/snapshots`, key },
      ...(seeded.snapshotId
        ? {
            "/servers/{id}/snapshots/{snapshotId}": { path: `${server}/snapshots/${seeded.snapshotId}`, key },
          }
        : {}),
      "/servers/{id}/snapshots/schedule": { path: `${server}/snapshots/schedule`, key },
      "/topups": { path: "/topups", key },
      "/topups/{ref}": { path: `/topups/${seeded.refs[0]}`, key },
      "/webhooks": { path: "/webhooks", key },
      "/webhooks/{id}": { path: `/webhooks/${seeded.webhookId}`, key },
      "/webhooks/{id}/deliveries": { path: `/webhooks/${seeded.webhookId}/deliveries`, key },
    };
    const measured = Object.entries(routes).filter(([name]) => !only || only.includes(name));
    // Every answer must be a 200 before anything is timed: a 4xx is cheap and would flatter the figures.
    for (const [name, route] of measured) {
      const answer = await fetch(`${base}/api/v1${route.path}`, {
        headers: route.key ? { authorization: `Bearer ${route.key}` } : {},
      });
      if (answer.status !== 200) throw new Error(`GET ${name}: ${answer.status} ${await answer.text()}`);
    }
    const open = (route: { path: string; key?: string }, duration: number) =>
      openLoad(`${base}/api/v1${route.path}`, route.key, duration, rate);
    for (const [, route] of measured) await open(route, warmup);

    // What the idle app spends (watchers, the lifecycle, metrics) in as long as a window.
    await sleep(1_000);
    const idleFrom = cpuMs(app.pid);
    const idleStarted = performance.now();
    await sleep(IDLE_SECONDS * 1000);
    const idlePerMs = (cpuMs(app.pid) - idleFrom) / (performance.now() - idleStarted);

    const measuringFrom = Date.now();
    const rows: {
      name: string;
      cpu: number;
      p50: number;
      p99: number;
      max: number;
      answered: number;
      errors: number;
      loopP99: number;
      loopMax: number;
    }[] = [];
    for (const [name, route] of measured) {
      const before = cpuMs(app.pid);
      const started = performance.now();
      const sample = await open(route, seconds);
      const spent = cpuMs(app.pid) - before - idlePerMs * (performance.now() - started);
      const summary = summarizeOpen(name, [sample]);
      const answered = sample.latencies.length;
      const loop = loopDuring(loopFile, Date.now() - (performance.now() - started), Date.now());
      rows.push({
        name,
        cpu: answered ? Math.max(0, spent) / answered : Number.NaN,
        p50: summary.p50,
        p99: summary.p99,
        max: summary.max,
        answered,
        errors: sample.errors,
        loopP99: loop.p99,
        loopMax: loop.max,
      });
    }
    console.log(
      `\n${target === "postgres" ? "PostgreSQL" : "PGlite"}, production build, one instance; each route an open loop ` +
        `at ${rate} requests/s for ${seconds} s; lists of ${LIST_SIZE}; the idle app's own CPU ` +
        `(${(idlePerMs * 1000).toFixed(0)} ms a second) taken out` +
        (grown ? `; grown to ${grown.servers} servers and ${grown.topups} top-ups` : ""),
    );
    console.log(
      "| route | answered | CPU ms/request | p50 ms | p99 ms | max ms | errors | loop p99 ms (worst second) | loop max ms |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const row of rows) {
      console.log(
        `| GET ${row.name} | ${row.answered} | ${row.cpu.toFixed(2)} | ${row.p50} | ${row.p99} | ${row.max} | ${row.errors} | ${row.loopP99} | ${row.loopMax} |`,
      );
    }
    const whole = loopDuring(loopFile, measuringFrom, Date.now());
    console.log(
      `event loop over the whole measurement: worst one-second p99 ${whole.p99} ms, longest stall ${whole.max} ms ` +
        `(target: no step over ${LOOP_TARGET_MS} ms)`,
    );
    const costly = rows.filter((row) => !(row.cpu <= CPU_TARGET_MS)).map((row) => row.name);
    const slow = rows.filter((row) => !(row.p99 <= P99_TARGET_MS)).map((row) => row.name);
    console.log(
      costly.length
        ? `CPU above ${CPU_TARGET_MS} ms: ${costly.join(", ")}`
        : `every route <= ${CPU_TARGET_MS} ms CPU`,
    );
    console.log(
      slow.length ? `p99 above ${P99_TARGET_MS} ms: ${slow.join(", ")}` : `every p99 <= ${P99_TARGET_MS} ms`,
    );

    if (profileFile) {
      const worst = [...rows].sort((a, b) => b.cpu - a.cpu)[0];
      const route = worst && routes[worst.name];
      if (route) await profile(app.pid, worst.name, () => open(route, seconds));
    }
  } finally {
    if (process.env.BENCH_LOG) console.log(app.logs());
    receiver.close();
    await app.stop();
  }
}

/**
 * How long the event loop was held between `from` and `to` (epoch ms), as the app's probe recorded it a line
 * a second: the worst second's p99 (no lower than the p99 of the whole window) and the longest stall.
 */
function loopDuring(file: string, from: number, to: number): { p99: number; max: number } {
  const seconds = existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { at: number; p99: number; max: number })
        // A line covers the second before its time.
        .filter((line) => line.at > from && line.at - 1000 < to)
    : [];
  // The probe's histogram counts its own 5 ms timer period in every delay: what is left is the stall.
  const stall = (ms: number) => Math.max(0, Math.round((ms - PROBE_TICK_MS) * 10) / 10);
  return {
    p99: stall(Math.max(0, ...seconds.map((line) => line.p99))),
    max: stall(Math.max(0, ...seconds.map((line) => line.max))),
  };
}

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
};

/** A CPU profile of the app while `load` runs (scripts/loop-probe.cjs), and its top functions by self time. */
async function profile(pid: number, name: string, load: () => Promise<unknown>) {
  const file = path.resolve(profileFile as string);
  process.kill(pid, "SIGUSR2");
  await sleep(200);
  await load();
  process.kill(pid, "SIGUSR2");
  await until(
    "the profile",
    async () => existsSync(file),
    (written) => written,
  );
  await sleep(500);
  const { nodes, samples } = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
  };
  const hits = new Map<number, number>();
  for (const id of samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byFunction = new Map<string, number>();
  for (const node of nodes) {
    const where = node.callFrame.url.replace(/^.*\/(node_modules|\.next)\//, "$1/");
    const label = `${node.callFrame.functionName || "(anonymous)"} ${where}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(label, (byFunction.get(label) ?? 0) + (hits.get(node.id) ?? 0));
  }
  const total = samples.length;
  console.log(`\nprofile of GET ${name} (${file}): top functions by self time, ${total} samples`);
  for (const [label, count] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
    console.log(`${((count / total) * 100).toFixed(1).padStart(5)}%  ${label}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
