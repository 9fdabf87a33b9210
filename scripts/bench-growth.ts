/**
 * Cost of background passes as the work grows: the server lifecycle pass and the deposit watcher pass timed
 * at 100, 1,000 and 10,000 servers / pending top-ups, seeded straight into the database. Each server is due
 * for its build; each top-up is pending with a simulated partial payment still confirming. Per size, three
 * passes of each kind are timed (median shown), with the items each pass handled and the longest time the
 * event loop was blocked during those passes (what a request arriving then would have waited).
 *
 *   npm run bench:growth                       # embedded PGlite in a temporary folder
 *   BENCH_DB=postgres npm run bench:growth     # PostgreSQL at BENCH_DATABASE_URL (wiped first)
 *   BENCH_SIZES=100,1000 npm run bench:growth
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import pg from "pg";

const sizes = (process.env.BENCH_SIZES ?? "100,1000,10000").split(",").map(Number);
const target = process.env.BENCH_DB ?? "pglite";
const PASSES = 3;

if (target === "postgres") {
  const url = process.env.BENCH_DATABASE_URL ?? "postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_reads";
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    "DROP SCHEMA IF EXISTS public CASCADE; DROP SCHEMA IF EXISTS drizzle CASCADE; CREATE SCHEMA public;",
  );
  await client.end();
  process.env.DATABASE_URL = url;
} else {
  delete process.env.DATABASE_URL;
}
process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), "vps-growth-"));
process.env.PROVISION_DELAY_SECONDS = "0";

// Loaded after the environment is set: the configuration is read once.
const { sql } = await import("drizzle-orm");
const { config } = await import("@/lib/config/env");
const { db } = await import("@/lib/db/client");
const { runWatcherPass } = await import("@/lib/background/runner");
const { runServerLifecycle } = await import("@/lib/servers/lifecycle");
const { encryptRootPassword } = await import("@/lib/servers/secrets");

const database = await db();
const rows = async <T>(query: ReturnType<typeof sql>) =>
  (await database.execute(query)) as unknown as { rows: T[] } & T[];
const count = async (query: ReturnType<typeof sql>) => {
  const result = await rows<{ n: number }>(query);
  return Number((result.rows ?? result)[0]?.n ?? 0);
};

async function seed(n: number) {
  await database.execute(sql`TRUNCATE accounts, servers, server_jobs, topups, deposit_payments, ledger_entries,
    ip_counters, chain_cursors, idempotency_keys RESTART IDENTITY CASCADE`);
  const accountCount = Math.max(1, Math.ceil(n / 10));
  await database.execute(sql`INSERT INTO accounts (balance_cents, login_token_hash)
    SELECT 1000000, 'growth-' || g FROM generate_series(1, ${accountCount}) g`);
  await database.execute(sql`INSERT INTO ledger_entries (account_id, amount_cents, balance_after_cents, kind, reference)
    SELECT id, 1000000, 1000000, 'topup', 'growth:' || id FROM accounts`);
  await database.execute(sql`INSERT INTO servers (account_id, plan, location, os, hostname, cycle, price_cents,
      expires_at, auto_renew, memory_mb, vcpus, disk_gb)
    SELECT 1 + (g % ${accountCount}), 'pup', 'nl', 'debian-12', 'growth-' || g, 'monthly', 400,
      now() + interval '30 days', true, 1024, 1, 20
    FROM generate_series(1, ${n}) g`);
  // Each server its own sealed root password, as an order stores it.
  const key = config().encryptionKey;
  for (let first = 1; first <= n; first += 1000) {
    const ids = Array.from({ length: Math.min(1000, n - first + 1) }, (_, i) => first + i);
    const sealed = ids.map((id) => encryptRootPassword(key, id, `growth-password-${id}`));
    await database.execute(sql`UPDATE servers SET root_password_enc = v.enc
      FROM unnest(${`{${ids.join(",")}}`}::int[], ${`{${sealed.map((s) => `"${s}"`).join(",")}}`}::text[]) AS v(id, enc)
      WHERE servers.id = v.id`);
  }
  await database.execute(sql`INSERT INTO server_jobs (server_id, kind, state, max_attempts, run_after)
    SELECT id, 'provision', 'pending', 3, now() - interval '1 second' FROM servers`);
  await database.execute(sql`INSERT INTO topups (ref, account_id, status, method, coin, network, amount_cents,
      deposit_address, derivation_index, deposit_units, rate_usd, rate_source, confirmations_required, expires_at)
    SELECT 'growth-' || g, 1 + (g % ${accountCount}), 'pending', 'deposit', 'USDTTRC', 'tron', 5000,
      'Tgrowth' || g, g, 50000000, 1, 'demo-fixed', 19, now() + interval '30 minutes'
    FROM generate_series(1, ${n}) g`);
  await database.execute(sql`INSERT INTO deposit_payments (topup_id, network, tx_hash, log_index, amount_units, confirmations)
    SELECT id, 'tron', 'demo-growth-' || id, -1, 1000000, 0 FROM topups`);
  await database.execute(sql`ANALYZE`);
}

type Timing = { ms: number; handled: number; maxBlockMs: number };

async function timed(pass: () => Promise<void>, handled: () => Promise<number>): Promise<Timing> {
  const before = await handled();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const started = performance.now();
  await pass();
  const ms = performance.now() - started;
  loop.disable();
  return { ms, handled: (await handled()) - before, maxBlockMs: loop.max / 1e6 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const fmt = (list: Timing[]) => {
  const ms = median(list.map((t) => t.ms));
  const handled = median(list.map((t) => t.handled));
  const block = Math.max(...list.map((t) => t.maxBlockMs));
  return `${ms.toFixed(0)} ms | ${handled} | ${block.toFixed(0)} ms`;
};

console.log(`${target === "postgres" ? "PostgreSQL" : "PGlite"}: median of ${PASSES} passes per size`);
console.log(
  "| servers / pending top-ups | lifecycle pass | builds done per pass | longest block | watcher pass | confirmations per pass | longest block |",
);
console.log("|---:|---:|---:|---:|---:|---:|---:|");
// Warm-up, not reported: the first passes also compile code and plan queries for the first time.
await seed(100);
await runServerLifecycle();
await runWatcherPass();

const results: { n: number; lifecycle: Timing[]; watcher: Timing[] }[] = [];
for (const n of sizes) {
  await seed(n);
  const lifecycle: Timing[] = [];
  const watcher: Timing[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    lifecycle.push(
      await timed(runServerLifecycle, () =>
        count(sql`SELECT count(*) AS n FROM server_jobs WHERE state = 'done'`),
      ),
    );
    watcher.push(
      await timed(runWatcherPass, () =>
        count(sql`SELECT coalesce(sum(confirmations), 0) AS n FROM deposit_payments`),
      ),
    );
  }
  results.push({ n, lifecycle, watcher });
  console.log(`| ${n.toLocaleString("en")} | ${fmt(lifecycle)} | ${fmt(watcher)} |`);
}

const first = results[0];
const last = results[results.length - 1];
if (first && last && last.n > first.n) {
  const growth = (list: (r: (typeof results)[number]) => Timing[]) =>
    median(list(last).map((t) => t.ms)) / Math.max(1, median(list(first).map((t) => t.ms)));
  console.log(
    `work grew ${last.n / first.n}x: lifecycle pass time ${growth((r) => r.lifecycle).toFixed(1)}x, ` +
      `watcher pass time ${growth((r) => r.watcher).toFixed(1)}x`,
  );
}
process.exit(0);
