/**
 * The embedded database's maintenance pass (lib/db/maintenance.ts, PGlite's stand-in for autovacuum) on a
 * grown app: how long each of its statements holds the thread, table by table, against the one
 * `VACUUM (ANALYZE)` per table it ran before. Every statement runs BENCH_ROUNDS times (3), interleaved; the
 * medians are printed, with the longest statement of each way.
 *
 *   BENCH_DATA_DIR=/tmp/vps-bench-cpu-XXXXXX npm run bench:maintenance
 *
 * BENCH_DATA_DIR is a stopped app's data directory, such as the one `npm run bench:growth:reads` leaves on
 * PGlite (it names it as it grows it): 10,000 servers, 100,000 top-ups and a month of usage graphs. The
 * app must not be running.
 */
import { performance } from "node:perf_hooks";
import { percentile } from "./percentile";

const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir) {
  console.error("BENCH_DATA_DIR: the data directory of a stopped, grown app (see the header)");
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
process.env.DATA_DIR = dataDir;
delete process.env.DATABASE_URL;

// Loaded after the environment is set: the configuration is read once.
const { sql } = await import("drizzle-orm");
const { databaseHandle } = await import("@/lib/db/client");
const { maintainTables } = await import("@/lib/db/maintenance");

const handle = await databaseHandle();
const database = handle.db;

type Times = { before: number[]; vacuum: number[]; analyze: number[] };
const times = new Map<string, Times>();
const timesOf = (table: string) => {
  let entry = times.get(table);
  if (!entry) {
    entry = { before: [], vacuum: [], analyze: [] };
    times.set(table, entry);
  }
  return entry;
};

for (let round = 0; round < ROUNDS; round++) {
  // Now: each statement timed from the end of the one before (the pass calls `between` after each); the
  // first table's VACUUM also holds the pass's read of the table states.
  const marks: number[] = [];
  let last = performance.now();
  const done = await maintainTables(database, {
    sweep: true,
    between: async () => {
      const at = performance.now();
      marks.push(at - last);
      last = performance.now();
    },
  });
  done.forEach((table, i) => {
    timesOf(table).vacuum.push(marks[2 * i] ?? Number.NaN);
    timesOf(table).analyze.push(marks[2 * i + 1] ?? Number.NaN);
  });
  // Before: one statement per table.
  for (const table of done) {
    const start = performance.now();
    await database.execute(sql.raw(`VACUUM (ANALYZE) "${table.replaceAll('"', '""')}"`));
    timesOf(table).before.push(performance.now() - start);
  }
}

const pages = new Map(
  (
    (await database.execute(sql`
      SELECT relname AS name, pg_relation_size(oid) / 8192 AS pages FROM pg_class
      WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`)) as unknown as {
      rows: { name: string; pages: number }[];
    }
  ).rows.map((row) => [row.name, Number(row.pages)]),
);
await handle.close();

const median = (values: number[]) => percentile(values, 50);
const rows = [...times.entries()].sort(([, a], [, b]) => median(b.before) - median(a.before));
console.log(`maintenance pass on ${dataDir}, median of ${ROUNDS} rounds (ms of the thread per statement)`);
console.log("| table | pages | VACUUM (ANALYZE), before | VACUUM | ANALYZE |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [table, entry] of rows.slice(0, 8)) {
  console.log(
    `| ${table} | ${pages.get(table) ?? "?"} | ${median(entry.before).toFixed(1)} | ` +
      `${median(entry.vacuum).toFixed(1)} | ${median(entry.analyze).toFixed(1)} |`,
  );
}
const longest = (pick: (entry: Times) => number[]) =>
  Math.max(...[...times.values()].flatMap((entry) => pick(entry)));
console.log(
  `longest statement: before ${longest((entry) => entry.before).toFixed(1)} ms, ` +
    `now ${longest((entry) => [...entry.vacuum, ...entry.analyze]).toFixed(1)} ms ` +
    `(${times.size} tables; the other tables' statements are shorter than the ones shown)`,
);
