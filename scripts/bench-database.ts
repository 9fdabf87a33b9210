/**
 * The database a benchmark runs on, chosen by BENCH_DB: `postgres` (BENCH_DATABASE_URL, or `defaultUrl`,
 * wiped first) or `pglite` (default: a fresh embedded one). Sets DATABASE_URL and DATA_DIR for the app code
 * the benchmark loads afterwards, since the configuration is read once.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

export async function openBenchDatabase(
  defaultUrl: string,
  dataDirPrefix: string,
): Promise<"pglite" | "postgres"> {
  const target = process.env.BENCH_DB === "postgres" ? "postgres" : "pglite";
  if (target === "postgres") {
    const url = process.env.BENCH_DATABASE_URL ?? defaultUrl;
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
  process.env.DATA_DIR = mkdtempSync(path.join(tmpdir(), dataDirPrefix));
  return target;
}
