import "server-only";
import { sql } from "drizzle-orm";
import { processWide } from "@/lib/util/process-wide";
import type { Database } from "./client";

/**
 * PostgreSQL's autovacuum keeps planner statistics current and reclaims dead rows; the embedded PGlite runs
 * no autovacuum at all. Without it, statistics stay as they were at start-up (empty tables), and the
 * planner keeps choosing plans made for empty tables: taking the next server job with 520 queued went from
 * 0.1 ms to 40-130 ms, each of them blocking the request thread. This pass stands in for autovacuum there.
 */

/** A table is vacuumed and analysed again once it has grown by this share (plus a page) since the last time. */
const GROWTH_SHARE = 0.2;
/** Every table is vacuumed and analysed this often anyway: updates leave dead rows without growing much. */
const SWEEP_INTERVAL_MS = 10 * 60_000;
/**
 * Sizes are looked at no more often than this: reading every table's size takes a file-size call per table,
 * measured at 2-280 ms of blocked thread per look under load, and a background pass runs every second.
 */
export const CHECK_INTERVAL_MS = 10_000;

type TableSize = { name: string; analyzedPages: number; pages: number };

async function tableSizes(database: Database): Promise<TableSize[]> {
  const result = await database.execute(sql`
    SELECT c.relname AS name, c.relpages AS analyzed_pages, pg_relation_size(c.oid) / 8192 AS pages
    FROM pg_class c
    WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
    ORDER BY c.relname`);
  const rows = (result as unknown as { rows: { name: string; analyzed_pages: number; pages: number }[] })
    .rows;
  return rows.map((row) => ({
    name: row.name,
    analyzedPages: Number(row.analyzed_pages),
    pages: Number(row.pages),
  }));
}

const hasGrown = (table: TableSize) => table.pages > table.analyzedPages * (1 + GROWTH_SHARE) + 1;

/**
 * Above this many pages a table is analysed from a smaller sample: ANALYZE reads 300 rows per unit of
 * statistics target (30,000 by default), one page each on a large table, and on the embedded database
 * that read holds the request thread (a month of usage graphs: 250-750 ms at the default).
 */
const LARGE_TABLE_PAGES = 1_000;
/** The statistics target for large tables: a sample of 3,000 rows, ten histogram buckets per column. */
const LARGE_TABLE_STATISTICS = 10;

/**
 * Vacuums and analyses each table that has grown since its statistics were taken (every table when
 * `sweep`), one statement at a time with `between` after each: VACUUM skips the pages the visibility map
 * shows clean, and ANALYZE of a large table takes a bounded sample. Returns the tables it did.
 */
export async function maintainTables(
  database: Database,
  options: { sweep: boolean; between?: () => Promise<void> },
): Promise<string[]> {
  const done: string[] = [];
  for (const table of await tableSizes(database)) {
    if (!options.sweep && !hasGrown(table)) continue;
    // Table names come from pg_class, quoted as identifiers.
    const name = `"${table.name.replaceAll('"', '""')}"`;
    await database.execute(sql.raw(`VACUUM ${name}`));
    await options.between?.();
    await database.transaction(async (tx) => {
      if (table.pages > LARGE_TABLE_PAGES) {
        await tx.execute(sql.raw(`SET LOCAL default_statistics_target = ${LARGE_TABLE_STATISTICS}`));
      }
      await tx.execute(sql.raw(`ANALYZE ${name}`));
    });
    done.push(table.name);
    await options.between?.();
  }
  return done;
}

/** Whether table sizes are due to be looked at again. */
export const checkDue = (lastCheck: number, at: number) => at - lastCheck >= CHECK_INTERVAL_MS;

/** The background pass's share on the embedded database: grown tables every pass, all of them now and then. */
export async function maintainEmbeddedDatabase(
  database: Database,
  between: () => Promise<void>,
): Promise<void> {
  const state = processWide("db.maintenance", () => ({
    lastSweep: Date.now(),
    lastCheck: Number.NEGATIVE_INFINITY,
  }));
  if (!checkDue(state.lastCheck, Date.now())) return;
  const sweep = Date.now() - state.lastSweep >= SWEEP_INTERVAL_MS;
  await maintainTables(database, { sweep, between });
  state.lastCheck = Date.now();
  if (sweep) state.lastSweep = Date.now();
}
