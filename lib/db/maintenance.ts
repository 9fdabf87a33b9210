import "server-only";
import { sql } from "drizzle-orm";
import { processWide } from "@/lib/util/process-wide";
import type { Database } from "./client";

/**
 * PostgreSQL's autovacuum keeps planner statistics current and reclaims dead rows; the embedded PGlite runs
 * no autovacuum at all. Without it, statistics stay as they were at start-up (empty tables), and the
 * planner keeps choosing plans made for empty tables: taking the next server job with 520 queued went from
 * 0.1 ms to 40-130 ms, each of them blocking the request thread. This pass stands in for autovacuum there,
 * with its rules: a table is analysed once the rows changed since its last ANALYZE pass 50 plus a tenth of
 * it, and vacuumed once its dead rows pass 50 plus a fifth, or the rows inserted since its last VACUUM 1,000
 * plus a fifth (PGlite keeps these counts while the process runs); and, since the counts start again at
 * zero in a new process, also once its file has grown a fifth past the size its statistics were taken at.
 */

/** A table is vacuumed and analysed again once it has grown by this share (plus a page) since the last time. */
const GROWTH_SHARE = 0.2;
/**
 * The table states are looked at no more often than this: reading every table's size takes a file-size
 * call per table, measured at 2-280 ms of blocked thread per look under load, and a background pass runs
 * every second.
 */
export const CHECK_INTERVAL_MS = 10_000;

type TableState = {
  name: string;
  /** Pages at the last VACUUM or ANALYZE, and now. */
  analyzedPages: number;
  pages: number;
  /** Live rows as of the last VACUUM or ANALYZE. */
  rows: number;
  changedSinceAnalyze: number;
  dead: number;
  insertedSinceVacuum: number;
};

async function tableStates(database: Database): Promise<TableState[]> {
  // This process's counts reach the statistics views at most once a second: have them there now.
  await database.execute(sql`SELECT pg_stat_force_next_flush()`);
  const result = await database.execute(sql`
    SELECT c.relname AS name, c.relpages AS analyzed_pages, pg_relation_size(c.oid) / 8192 AS pages,
      greatest(c.reltuples, 0) AS rows, coalesce(s.n_mod_since_analyze, 0) AS changed,
      coalesce(s.n_dead_tup, 0) AS dead, coalesce(s.n_ins_since_vacuum, 0) AS inserted
    FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
    WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
    ORDER BY c.relname`);
  const rows = (result as unknown as { rows: Record<string, unknown>[] }).rows;
  return rows.map((row) => ({
    name: String(row.name),
    analyzedPages: Number(row.analyzed_pages),
    pages: Number(row.pages),
    rows: Number(row.rows),
    changedSinceAnalyze: Number(row.changed),
    dead: Number(row.dead),
    insertedSinceVacuum: Number(row.inserted),
  }));
}

const hasGrown = (table: TableState) => table.pages > table.analyzedPages * (1 + GROWTH_SHARE) + 1;
const analyzeDue = (table: TableState) =>
  hasGrown(table) || table.changedSinceAnalyze > 50 + 0.1 * table.rows;
const vacuumDue = (table: TableState) =>
  hasGrown(table) ||
  table.dead > 50 + 0.2 * table.rows ||
  table.insertedSinceVacuum > 1_000 + 0.2 * table.rows;

/**
 * The statistics target a table is analysed at (null: the default, 100). ANALYZE samples 300 rows per unit
 * of target and works through every column of each, reading a page per row on a large table; on the
 * embedded database that holds the request thread (a month of usage graphs, 147,000 pages: 250-750 ms at
 * the default; 10,000 servers, 340 pages: 37 ms). So the sample is 3,000 rows over 100 pages (800 KB), and
 * 900 over 20,000.
 */
export function statisticsTargetFor(pages: number): number | null {
  if (pages > 20_000) return 3;
  if (pages > 100) return 10;
  return null;
}

/**
 * Vacuums and analyses each table that is due (every table when `sweep`), one statement at a time with
 * `between` after each: VACUUM skips the pages the visibility map shows clean, and ANALYZE of a large table
 * takes a bounded sample. Returns the tables it did something to.
 */
export async function maintainTables(
  database: Database,
  options: { sweep: boolean; between?: () => Promise<void> },
): Promise<string[]> {
  const done: string[] = [];
  for (const table of await tableStates(database)) {
    const vacuum = options.sweep || vacuumDue(table);
    const analyze = options.sweep || analyzeDue(table);
    if (!vacuum && !analyze) continue;
    // Table names come from pg_class, quoted as identifiers.
    const name = `"${table.name.replaceAll('"', '""')}"`;
    if (vacuum) {
      await database.execute(sql.raw(`VACUUM ${name}`));
      await options.between?.();
    }
    if (analyze) {
      const target = statisticsTargetFor(table.pages);
      await database.transaction(async (tx) => {
        if (target !== null) await tx.execute(sql.raw(`SET LOCAL default_statistics_target = ${target}`));
        await tx.execute(sql.raw(`ANALYZE ${name}`));
      });
      await options.between?.();
    }
    done.push(table.name);
  }
  return done;
}

/** Whether the table states are due to be looked at again. */
export const checkDue = (lastCheck: number, at: number) => at - lastCheck >= CHECK_INTERVAL_MS;

/** The background pass's share on the embedded database: the tables that are due, every CHECK_INTERVAL_MS. */
export async function maintainEmbeddedDatabase(
  database: Database,
  between: () => Promise<void>,
): Promise<void> {
  const state = processWide("db.maintenance", () => ({ lastCheck: Number.NEGATIVE_INFINITY }));
  if (!checkDue(state.lastCheck, Date.now())) return;
  await maintainTables(database, { sweep: false, between });
  state.lastCheck = Date.now();
}
