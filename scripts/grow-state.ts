/**
 * Grows a database the app has stopped using to the size of a busy service, for `bench:growth:reads`:
 * accounts, servers and top-ups copied from rows the app made itself (so every column is one it writes),
 * each copy with what must stay unique made unique, and a month of usage per running server at every
 * resolution the app keeps (lib/servers/metrics/tiers.ts: 2 h of minutes, 25 h of 5 minutes, 32 days of
 * hours, about 1,190 rows a server). Plain SQL, so the same statements grow PGlite and PostgreSQL.
 */
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

type Runner = {
  query: <T>(text: string) => Promise<T[]>;
  close: () => Promise<void>;
};

/** The database behind an app's DATA_DIR (PGlite) or at `url` (PostgreSQL), opened by this process. */
export async function openGrowthTarget(target: { url?: string; dataDir: string }): Promise<Runner> {
  if (target.url) {
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    return {
      query: async <T>(text: string) => (await client.query(text)).rows as T[],
      close: () => client.end(),
    };
  }
  const client = await PGlite.create({ dataDir: path.join(target.dataDir, "pglite") });
  return {
    query: async <T>(text: string) => (await client.query<T>(text)).rows,
    close: () => client.close(),
  };
}

/** The size to grow to; `accounts` own the copies in turn. */
export type GrowthSize = { accounts: number; servers: number; topups: number };

/** The rows the copies are made from: one of the app's accounts, an active server and a paid top-up. */
export type GrowthTemplate = { accountId: number; serverId: number; topupRef: string };

/** The columns of `table` an INSERT may name (not its identity column). */
async function insertableColumns(db: Runner, table: string): Promise<string[]> {
  const rows = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = '${table}' AND is_identity = 'NO' AND is_generated = 'NEVER'
     ORDER BY ordinal_position`,
  );
  return rows.map((row) => row.column_name);
}

/**
 * `count` copies of the rows of `table` matching `where` (as `t`), numbered `g` from 1; `overrides` gives
 * a column an SQL expression of `t` and `g` instead of the template's value.
 */
async function copyRows(
  db: Runner,
  table: string,
  where: string,
  count: number,
  overrides: Record<string, string>,
): Promise<void> {
  const columns = await insertableColumns(db, table);
  const values = columns.map((column) => overrides[column] ?? `t."${column}"`);
  await db.query(
    `INSERT INTO ${table} (${columns.map((column) => `"${column}"`).join(", ")})
     SELECT ${values.join(", ")} FROM ${table} t, generate_series(1, ${count}) AS g WHERE ${where}`,
  );
}

const firstId = async (db: Runner, query: string) =>
  Number((await db.query<{ id: number }>(query))[0]?.id ?? 0);

/** Servers whose month of usage one statement writes (about 600,000 rows). */
const METRICS_SLICE = 500;

/** Grows the database; prints what it made and how long each part took. */
export async function growState(db: Runner, template: GrowthTemplate, size: GrowthSize): Promise<void> {
  const timed = async (what: string, run: () => Promise<void>) => {
    const started = performance.now();
    await run();
    console.log(`  ${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  const owner = (first: number) => `${first} + ((g - 1) % ${size.accounts})`;

  await timed(`${size.accounts.toLocaleString("en")} accounts`, () =>
    copyRows(db, "accounts", `t.id = ${template.accountId}`, size.accounts, {
      login_token_hash: `'grown-' || g`,
    }),
  );
  const firstAccount = await firstId(
    db,
    `SELECT min(id) AS id FROM accounts WHERE login_token_hash LIKE 'grown-%'`,
  );

  await timed(`${size.servers.toLocaleString("en")} servers`, () =>
    copyRows(db, "servers", `t.id = ${template.serverId}`, size.servers, {
      account_id: owner(firstAccount),
      hostname: `'grown-' || g`,
      ip: `'10.' || (g / 65536) || '.' || ((g / 256) % 256) || '.' || (g % 256)`,
      ipv6_prefix: `CASE WHEN t.ipv6_prefix IS NULL THEN NULL ELSE 'fd00:' || to_hex(g) || '::/64' END`,
    }),
  );

  const [topup] = await db.query<{ id: number }>(
    `SELECT id FROM topups WHERE ref = '${template.topupRef.replace(/'/g, "''")}'`,
  );
  if (!topup) throw new Error(`no top-up ${template.topupRef} to copy`);
  await timed(`${size.topups.toLocaleString("en")} paid top-ups with their payments`, async () => {
    await copyRows(db, "topups", `t.id = ${topup.id}`, size.topups, {
      ref: `'grown' || g`,
      account_id: owner(firstAccount),
      deposit_address: `t.deposit_address || '-' || g`,
      // A history a minute apart going back 69 days, about 10,000 of them in the status page's week.
      created_at: `t.created_at - g * interval '1 minute'`,
      expires_at: `t.expires_at - g * interval '1 minute'`,
      closed_at: `t.closed_at - g * interval '1 minute'`,
    });
    const firstTopup = await firstId(db, `SELECT min(id) AS id FROM topups WHERE ref LIKE 'grown%'`);
    await copyRows(db, "deposit_payments", `t.topup_id = ${topup.id}`, size.topups, {
      topup_id: `${firstTopup} + g - 1`,
      tx_hash: `t.tx_hash || '-' || g`,
      seen_at: `t.seen_at - g * interval '1 minute'`,
      confirming_block_at: `t.confirming_block_at - g * interval '1 minute'`,
      confirmed_at: `t.confirmed_at - g * interval '1 minute'`,
    });
  });

  const [range] = await db.query<{ low: number; high: number }>(
    `SELECT min(id) AS low, max(id) AS high FROM servers WHERE status = 'active'`,
  );
  await timed("a month of usage per active server", async () => {
    for (let low = Number(range?.low ?? 0); low <= Number(range?.high ?? -1); low += METRICS_SLICE) {
      // Each tier's buckets back from the last complete one, within what the app keeps of it.
      await db.query(
        `INSERT INTO server_metrics (server_id, step_seconds, bucket, seconds, memory_samples, memory_kib_sum,
           cpu_ms, rx_bytes, tx_bytes, read_bytes, write_bytes)
         SELECT s.id, tier.step, to_timestamp((floor(extract(epoch FROM now()) / tier.step) - k) * tier.step),
           tier.step, tier.step / 60, (tier.step / 60) * 400000, tier.step * 30, tier.step * 20000,
           tier.step * 5000, tier.step * 10000, tier.step * 8000
         FROM servers s
         CROSS JOIN (VALUES (60, 119), (300, 299), (3600, 767)) AS tier(step, buckets)
         CROSS JOIN LATERAL generate_series(1, tier.buckets) AS k
         WHERE s.status = 'active' AND s.id >= ${low} AND s.id < ${low + METRICS_SLICE}
         ON CONFLICT DO NOTHING`,
      );
    }
  });
  await timed("ANALYZE", () => db.query("ANALYZE").then(() => undefined));

  const counts = await db.query<{ servers: number; topups: number; payments: number; metrics: number }>(
    `SELECT (SELECT count(*) FROM servers) AS servers, (SELECT count(*) FROM topups) AS topups,
       (SELECT count(*) FROM deposit_payments) AS payments, (SELECT count(*) FROM server_metrics) AS metrics`,
  );
  const made = counts[0];
  console.log(
    `  now: ${Number(made?.servers).toLocaleString("en")} servers, ${Number(made?.topups).toLocaleString("en")} top-ups, ` +
      `${Number(made?.payments).toLocaleString("en")} payments, ${Number(made?.metrics).toLocaleString("en")} usage rows`,
  );
}
