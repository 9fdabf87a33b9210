/**
 * Cost of usage sampling and what it stores:
 *
 * 1. One sampling pass of a host with 1,000 domains: a stub `virsh` prints `virsh domstats` output in the
 *    real format (one block per domain, counters that move between passes); the pass reads it, records
 *    usage and traffic and prunes. The median of several passes, with the `virsh` + parse share apart.
 * 2. Real passes on this machine's libvirt (`BENCH_REAL_URI`, default qemu:///system): one
 *    `virsh domstats` for all its domains, parsed, the median of 5, with BENCH_REAL_GUESTS (default 3) tiny
 *    test guests of its own running (ordered through the app on the libvirt provisioner, domains `vpsm-<id>`,
 *    removed at the end; `npm run guest:build-tiny`, root, and `flock /work/vm.lock`, as it boots VMs).
 *    BENCH_REAL_GUESTS=0 reads whatever runs.
 * 3. Rows and bytes stored per server after a month of sampling (simulated time, the demo series through
 *    the same storage), against the documented bound.
 * 4. GET /servers/{id}/metrics?period=30d over a full month of rows: p50 and p99, in-process on the
 *    service's read, and over HTTP against the production build (`scripts/server.mjs`) on the same database:
 *    on PostgreSQL beside the benchmark, on PGlite once the benchmark has closed its embedded database and
 *    handed its folder to the app.
 *
 *   flock /work/vm.lock npm run bench:metrics                       # embedded PGlite in a temporary folder
 *   BENCH_DB=postgres flock /work/vm.lock npm run bench:metrics     # PostgreSQL at BENCH_DATABASE_URL (wiped first)
 *   BENCH_DOMAINS=1000 BENCH_MONTH_SERVERS=20 BENCH_REQUESTS=300 BENCH_REAL_GUESTS=3 npm run bench:metrics
 *
 * The HTTP part and the guests need a production build (`npm run build`).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { resetPostgres } from "../e2e/support/reset-postgres";
import { apiCaller, fundedAccount, removeMachines, startBenchApp } from "./bench-host";
import { percentile } from "./percentile";

const DOMAINS = Number(process.env.BENCH_DOMAINS ?? 1000);
const MONTH_SERVERS = Number(process.env.BENCH_MONTH_SERVERS ?? 20);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const PASSES = 5;
const REAL_URI = process.env.BENCH_REAL_URI ?? "qemu:///system";
const REAL_GUESTS = Number(process.env.BENCH_REAL_GUESTS ?? 3);
const GUEST_PREFIX = "vpsm-";
const TINY_IMAGES = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
// Forwarded SSH ports of its own, apart from the vm suite's and the other VM benchmarks'.
const GUEST_SSH_PORT_BASE = Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600) + 1000;
const target = process.env.BENCH_DB ?? "pglite";
const PREFIX = "vps-";

const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? "postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_reads";
if (target === "postgres") {
  await resetPostgres(databaseUrl);
  process.env.DATABASE_URL = databaseUrl;
} else {
  delete process.env.DATABASE_URL;
}
const scratch = mkdtempSync(path.join(tmpdir(), "vps-bench-metrics-"));
process.env.DATA_DIR = path.join(scratch, "data");
process.env.LIBVIRT_DOMAIN_PREFIX = PREFIX;

// Loaded after the environment is set: the configuration is read once.
const { sql } = await import("drizzle-orm");
const { db } = await import("@/lib/db/client");
const { sampleHost } = await import("@/lib/servers/metrics/sampler");
const { DOMSTATS_ARGS, LibvirtUsageSource } = await import("@/lib/servers/metrics/libvirt-source");
const { DemoUsageSource } = await import("@/lib/servers/metrics/demo-source");
const { parseDomstats } = await import("@/lib/servers/metrics/domstats");
const { readServerMetrics } = await import("@/lib/servers/metrics/read");
const { ROWS_PER_SERVER_BOUND, TIERS } = await import("@/lib/servers/metrics/tiers");
const { virsh } = await import("@/lib/servers/libvirt/virsh");
const { createAccount } = await import("@/lib/accounts/account");
const { databaseHandle } = await import("@/lib/db/client");

const database = await db();
const rows = async <T>(query: ReturnType<typeof sql>) => {
  const result = (await database.execute(query)) as unknown as { rows?: T[] } & T[];
  return result.rows ?? result;
};
const median = (values: number[]) => percentile(values, 50);
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Accounts and active, running servers on host `host`, straight into the database. */
async function seedServers(count: number, host: string): Promise<number[]> {
  const [account] = await rows<{ id: number }>(
    sql`INSERT INTO accounts (balance_cents, login_token_hash) VALUES (0, ${`bench-metrics-${host}`}) RETURNING id`,
  );
  const inserted = await rows<{
    id: number;
  }>(sql`INSERT INTO servers (account_id, plan, location, os, hostname,
      cycle, price_cents, status, power_state, hypervisor, expires_at, memory_mb, vcpus, disk_gb)
    SELECT ${account?.id}, 'pup', 'nl', 'debian-12', ${host} || '-' || g, 'monthly', 400, 'active', 'running',
      ${host}, now() + interval '30 days', 1024, 1, 20
    FROM generate_series(1, ${count}) g RETURNING id`);
  return inserted.map((row) => Number(row.id));
}

/** `virsh domstats --state --cpu-total --balloon --interface --block` as libvirt prints it for one domain. */
function domstatsBlock(id: number, pass: number): string {
  const grow = (base: number, perPass: number) => base + id * 1_000 + pass * perPass;
  return [
    `Domain: '${PREFIX}${id}'`,
    "  state.state=1",
    "  state.reason=1",
    `  cpu.time=${grow(23_114_434_000, 1_800_000_000)}`,
    `  cpu.user=${grow(21_531_769_000, 1_500_000_000)}`,
    `  cpu.system=${grow(1_582_664_000, 300_000_000)}`,
    "  balloon.current=1048576",
    "  balloon.maximum=1048576",
    "  balloon.unused=845676",
    "  balloon.available=996608",
    "  balloon.usable=809732",
    "  balloon.last-update=1795593730",
    "  balloon.rss=493500",
    "  net.count=1",
    `  net.0.name=vnet${id}`,
    `  net.0.rx.bytes=${grow(1_726, 2_400_000)}`,
    "  net.0.rx.pkts=21",
    "  net.0.rx.errs=0",
    "  net.0.rx.drop=0",
    `  net.0.tx.bytes=${grow(2_778, 9_000_000)}`,
    "  net.0.tx.pkts=31",
    "  net.0.tx.errs=0",
    "  net.0.tx.drop=0",
    "  block.count=1",
    "  block.0.name=vda",
    `  block.0.path=/var/lib/vps/disks/${PREFIX}${id}.qcow2`,
    "  block.0.backingIndex=1",
    "  block.0.rd.reqs=4521",
    `  block.0.rd.bytes=${grow(101_390_336, 1_200_000)}`,
    "  block.0.rd.times=3201950823",
    "  block.0.wr.reqs=812",
    `  block.0.wr.bytes=${grow(22_794_240, 3_600_000)}`,
    "  block.0.wr.times=2114005993",
    "  block.0.fl.reqs=91",
    "  block.0.fl.times=1093104226",
    "  block.0.allocation=219676672",
    "  block.0.capacity=21474836480",
    "  block.0.physical=219676672",
    "",
  ].join("\n");
}

/** 1. A host of DOMAINS machines read through a stub `virsh` on PATH. */
async function hostPass() {
  const ids = await seedServers(DOMAINS, "bench-1");
  const stubDir = path.join(scratch, "bin");
  const output = path.join(scratch, "domstats.txt");
  mkdirSync(stubDir);
  writeFileSync(path.join(stubDir, "virsh"), `#!/bin/sh\nexec cat '${output}'\n`);
  chmodSync(path.join(stubDir, "virsh"), 0o755);
  const realPath = process.env.PATH;
  process.env.PATH = `${stubDir}:${realPath}`;
  const source = new LibvirtUsageSource({
    hypervisors: [
      { name: "bench-1", location: "nl", uri: "qemu:///system", memoryMb: 1, vcpus: 1, diskGb: 1 },
    ],
    domainPrefix: PREFIX,
  });
  let readMs = 0;
  const timed = {
    demo: false,
    hosts: () => source.hosts(),
    onHost: source.onHost.bind(source),
    setSlowdown: source.setSlowdown.bind(source),
    read: async (host: string) => {
      const started = performance.now();
      const readings = await source.read(host);
      readMs = performance.now() - started;
      return readings;
    },
  };
  const start = Date.now();
  const passes: { total: number; read: number; servers: number; readings: number }[] = [];
  // Pass 0 only sets each server's first counters; the timed passes after it record usage and traffic.
  for (let pass = 0; pass <= PASSES; pass++) {
    writeFileSync(output, ids.map((id) => domstatsBlock(id, pass)).join(""));
    const at = new Date(start + pass * 60_000);
    const started = performance.now();
    const counted = await sampleHost(
      database,
      timed,
      "bench-1",
      { metricsIntervalSeconds: 60, trafficCapMb: undefined },
      () => at,
    );
    if (pass > 0) passes.push({ total: performance.now() - started, read: readMs, ...counted });
  }
  process.env.PATH = realPath;
  const bytes = Buffer.byteLength(domstatsBlock(ids[0] ?? 1, 0)) * ids.length;
  const [stored] = await rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM server_metrics WHERE server_id IN (SELECT id FROM servers WHERE hypervisor = 'bench-1')`,
  );
  return {
    domains: ids.length,
    outputKb: bytes / 1000,
    servers: passes[0]?.servers ?? 0,
    readings: passes[0]?.readings ?? 0,
    passMs: median(passes.map((p) => p.total)),
    passMaxMs: Math.max(...passes.map((p) => p.total)),
    readMs: median(passes.map((p) => p.read)),
    rows: Number(stored?.n ?? 0),
  };
}

/**
 * 2a. Tiny guests of the benchmark's own, so the real pass reads running machines: ordered through an app on
 * the libvirt provisioner (started before the stub `virsh` goes on PATH), and booting while pass 1 runs.
 */
async function startGuests() {
  if (REAL_GUESTS <= 0) return undefined;
  removeMachines(GUEST_PREFIX);
  const app = await startBenchApp(
    {
      machines: REAL_GUESTS,
      memoryMb: 256,
      vcpus: 1,
      diskGb: 1,
      prefix: GUEST_PREFIX,
      images: TINY_IMAGES,
      disksDir: "/var/lib/vps/bench-metrics-servers",
      sshPortBase: GUEST_SSH_PORT_BASE,
    },
    // Its own embedded database, whatever this benchmark's.
    { DATABASE_URL: "", SERVER_BOOT_TIMEOUT_SECONDS: "600" },
  );
  try {
    const call = apiCaller(app.url);
    const { key } = await fundedAccount(call, 10 * REAL_GUESTS + 25, "USDTTRC");
    const ids: number[] = [];
    for (let i = 0; i < REAL_GUESTS; i++) {
      const server = await call("/servers", key, "POST", { plan: "pup", location: "nl", os: "debian-12" });
      if (typeof server.id !== "number") throw new Error(`order refused: ${JSON.stringify(server)}`);
      ids.push(server.id);
    }
    const active = async () => {
      for (const id of ids) {
        for (;;) {
          const status = (await call(`/servers/${id}`, key)).status;
          if (status === "active") break;
          if (status !== "provisioning") throw new Error(`server ${id} is ${status}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    };
    return {
      active,
      stop: async () => {
        await app.stop();
        removeMachines(GUEST_PREFIX);
      },
    };
  } catch (error) {
    await app.stop();
    removeMachines(GUEST_PREFIX);
    throw error;
  }
}

/** 2b. `virsh domstats` of this machine's own domains, parsed: the median of 5. */
async function realPass() {
  try {
    const times: number[] = [];
    let domains = 0;
    let running = 0;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const output = await virsh(REAL_URI, DOMSTATS_ARGS);
      const readings = parseDomstats(output);
      times.push(performance.now() - started);
      domains = readings.size;
      running = [...readings.values()].filter((reading) => reading.running).length;
    }
    return { domains, running, ms: median(times), worst: Math.max(...times) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** 3. MONTH_SERVERS servers sampled over 32 days: hourly readings, then every 5 min for a day, then every minute. */
async function month() {
  const ids = await seedServers(MONTH_SERVERS, "bench-month");
  const end = Date.now();
  const phases = [
    { from: end - 32 * 86_400_000, to: end - 25 * 3_600_000, everySeconds: 3_600 },
    { from: end - 25 * 3_600_000, to: end - 2 * 3_600_000, everySeconds: 300 },
    { from: end - 2 * 3_600_000, to: end, everySeconds: 60 },
  ];
  let passes = 0;
  const started = performance.now();
  for (const phase of phases) {
    // The demo's counters continue across readings as far apart as the phase's interval.
    const source = new DemoUsageSource(phase.everySeconds);
    const only = {
      demo: true,
      hosts: () => ["bench-month"],
      onHost: (server: { hypervisor: string | null }) => server.hypervisor === "bench-month",
      setSlowdown: async () => true,
      read: source.read.bind(source),
    };
    for (let at = phase.from; at < phase.to; at += phase.everySeconds * 1000) {
      const when = new Date(at);
      await sampleHost(
        database,
        only,
        "bench-month",
        { metricsIntervalSeconds: phase.everySeconds, trafficCapMb: undefined },
        () => when,
      );
      passes += 1;
    }
  }
  const simulatedMs = performance.now() - started;
  const perServer = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM server_metrics
    WHERE server_id IN (SELECT id FROM servers WHERE hypervisor = 'bench-month') GROUP BY server_id`);
  const counts = perServer.map((row) => Number(row.n));
  // Sizes after VACUUM FULL: the live rows and their indexes, without the dead tuples updates leave behind.
  await database.execute(sql`DELETE FROM server_metrics WHERE server_id NOT IN (${sql.join(ids, sql`, `)})`);
  await database.execute(sql`DELETE FROM server_traffic WHERE server_id NOT IN (${sql.join(ids, sql`, `)})`);
  await database.execute(
    sql`DELETE FROM server_metric_state WHERE server_id NOT IN (${sql.join(ids, sql`, `)})`,
  );
  await database.execute(sql`VACUUM FULL server_metrics`);
  await database.execute(sql`VACUUM FULL server_traffic`);
  await database.execute(sql`VACUUM FULL server_metric_state`);
  const [sizes] = await rows<{ metrics: number; traffic: number; state: number; row: number }>(sql`SELECT
      pg_total_relation_size('server_metrics')::int AS metrics,
      pg_total_relation_size('server_traffic')::int AS traffic,
      pg_total_relation_size('server_metric_state')::int AS state,
      (SELECT avg(pg_column_size(m.*))::int FROM server_metrics m) AS row`);
  const [tiers] = await rows<{ fine: number; mid: number; hourly: number }>(sql`SELECT
      count(*) FILTER (WHERE step_seconds = 60)::int AS fine,
      count(*) FILTER (WHERE step_seconds = 300)::int AS mid,
      count(*) FILTER (WHERE step_seconds = 3600)::int AS hourly
    FROM server_metrics`);
  const n = Math.max(1, ids.length);
  return {
    servers: ids.length,
    passes,
    simulatedMs,
    rowsMax: Math.max(...counts),
    rowsMin: Math.min(...counts),
    perTier: { fine: (tiers?.fine ?? 0) / n, mid: (tiers?.mid ?? 0) / n, hourly: (tiers?.hourly ?? 0) / n },
    rowBytes: Number(sizes?.row ?? 0),
    metricsBytes: Number(sizes?.metrics ?? 0) / n,
    trafficBytes: Number(sizes?.traffic ?? 0) / n,
    stateBytes: Number(sizes?.state ?? 0) / n,
    ids,
  };
}

/** 4a. The 30-day read of the service, in-process: the query and the shaping of 720 buckets. */
async function readInProcess(ids: number[]) {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const id = ids[i % ids.length] ?? 1;
    const started = performance.now();
    const metrics = await readServerMetrics(database, { id, vcpus: 1 }, "30d", true, new Date());
    times.push(performance.now() - started);
    if (i === 0 && metrics.timestamps.length !== 720) throw new Error("a 30-day read has 720 hourly buckets");
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/**
 * 4b. Over HTTP against the production build on the same database: an account made here owns the servers,
 * then the app reads them with its key. On PGlite the app takes over the embedded database's folder, which
 * this process closes first (one process per folder).
 */
async function readOverHttp(ids: number[]) {
  const { startApp } = await import("../e2e/support/app-server");
  const account = await createAccount();
  await database.execute(
    sql`UPDATE servers SET account_id = ${account.user_id} WHERE id IN (${sql.join(ids, sql`, `)})`,
  );
  if (target !== "postgres") await (await databaseHandle()).close();
  // The app's own sampler reads every hour at most: the month's rows stay as the benchmark wrote them.
  const app = await startApp(
    target === "postgres"
      ? { DATABASE_URL: databaseUrl, METRICS_INTERVAL_SECONDS: "3600" }
      : { DATABASE_URL: "", DATA_DIR: process.env.DATA_DIR as string, METRICS_INTERVAL_SECONDS: "3600" },
  );
  try {
    const read = async (id: number) => {
      const started = performance.now();
      const response = await fetch(`${app.url}/api/v1/servers/${id}/metrics?period=30d`, {
        headers: { authorization: `Bearer ${account.api_key}` },
      });
      const body = (await response.json()) as { timestamps?: number[] };
      if (response.status !== 200 || body.timestamps?.length !== 720)
        throw new Error(`GET metrics: HTTP ${response.status}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 20; i++) await read(ids[i % ids.length] ?? 1);
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) times.push(await read(ids[i % ids.length] ?? 1));
    return { p50: percentile(times, 50), p99: percentile(times, 99) };
  } finally {
    await app.stop();
  }
}

try {
  const where = target === "postgres" ? "PostgreSQL" : "PGlite";
  console.log(`usage sampling on ${where}\n`);

  const guests = await startGuests();
  const host = await hostPass();
  console.log(
    `1. sampling pass, ${host.domains} domains (stub virsh, ${host.outputKb.toFixed(0)} kB of domstats):` +
      ` median ${ms(host.passMs)} (worst ${ms(host.passMaxMs)}) of ${PASSES} passes; virsh + parse ${ms(host.readMs)};` +
      ` ${host.readings} machines read for ${host.servers} servers; ${host.rows} usage rows written`,
  );

  let real: Awaited<ReturnType<typeof realPass>>;
  try {
    await guests?.active();
    real = await realPass();
  } finally {
    await guests?.stop();
  }
  console.log(
    "error" in real
      ? `2. real pass on ${REAL_URI}: could not read: ${real.error}`
      : `2. real pass on ${REAL_URI}: one virsh domstats + parse, ${real.domains} domains (${real.running} running, ` +
          `${REAL_GUESTS} of them this benchmark's tiny guests): median of 5 ${ms(real.ms)} (worst ${ms(real.worst)})`,
  );

  const kept = await month();
  console.log(
    `3. a month of sampling, ${kept.servers} servers (${kept.passes} passes of simulated time in ${(kept.simulatedMs / 1000).toFixed(0)} s):` +
      ` ${kept.rowsMin}-${kept.rowsMax} usage rows per server (bound ${ROWS_PER_SERVER_BOUND};` +
      ` per tier ${TIERS.map((t) => `${t.stepSeconds} s`).join(" / ")}: ${kept.perTier.fine} / ${kept.perTier.mid} / ${kept.perTier.hourly});` +
      ` ${kept.rowBytes} bytes per row; per server on disk with indexes: usage ${(kept.metricsBytes / 1024).toFixed(1)} KiB,` +
      ` traffic ${(kept.trafficBytes / 1024).toFixed(1)} KiB, last reading ${(kept.stateBytes / 1024).toFixed(1)} KiB`,
  );

  const local = await readInProcess(kept.ids);
  console.log(
    `4. 30-day metrics read (720 hourly buckets), ${REQUESTS} reads in-process: p50 ${ms(local.p50)}, p99 ${ms(local.p99)}`,
  );
  const http = await readOverHttp(kept.ids);
  console.log(
    `   GET /servers/{id}/metrics?period=30d over HTTP (the production build, one client, ${REQUESTS} reads): ` +
      `p50 ${ms(http.p50)}, p99 ${ms(http.p99)}`,
  );
  console.log(`load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
