import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { createAccount, openMemoryDatabase } from "@/lib/testing/memory-db";
import { CHECK_INTERVAL_MS, checkDue, maintainTables } from "./maintenance";

/** The worker's query for its next job (lib/servers/jobs.ts), as the plan to check. */
const NEXT_JOB = `EXPLAIN SELECT * FROM server_jobs
  WHERE ((state = 'pending' AND run_after <= now()) OR (state = 'running' AND lease_until < now()))
    AND NOT EXISTS (SELECT 1 FROM server_jobs earlier WHERE earlier.server_id = server_jobs.server_id
      AND earlier.id < server_jobs.id AND earlier.state IN ('pending', 'running'))
  ORDER BY run_after, id LIMIT 1 FOR UPDATE SKIP LOCKED`;

describe("maintenance of the embedded database (no autovacuum)", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  const plan = async () =>
    ((await db.execute(sql.raw(NEXT_JOB))) as unknown as { rows: { "QUERY PLAN": string }[] }).rows
      .map((row) => row["QUERY PLAN"])
      .join("\n");

  it("analyses a table that grew, so the planner stops planning for an empty one", async () => {
    await maintainTables(db, { sweep: true }); // statistics of the empty tables, as at start-up
    const accountId = await createAccount(db);
    await db.execute(sql`
      INSERT INTO servers (account_id, plan, location, os, hostname, cycle, price_cents, expires_at)
      SELECT ${accountId}, 'pup', 'nl', 'debian-13', 'h' || g, 'monthly', 400, now() + interval '30 days'
      FROM generate_series(1, 520) g`);
    await db.execute(sql`
      INSERT INTO server_jobs (server_id, kind, state, max_attempts, run_after)
      SELECT id, 'provision', 'pending', 3, now() - interval '1 second' FROM servers`);
    // Planned for an empty table: all open jobs are read again for each candidate.
    expect(await plan()).toContain("Seq Scan on server_jobs earlier");

    const done = await maintainTables(db, { sweep: false });
    expect(done).toEqual(expect.arrayContaining(["server_jobs", "servers"]));
    expect(done).not.toContain("hypervisors");
    const analysed = await plan();
    expect(analysed).toContain("Index Scan using server_jobs_open_server_idx on server_jobs earlier");
    expect(analysed).not.toContain("Seq Scan on server_jobs earlier");

    expect(await maintainTables(db, { sweep: false })).toEqual([]); // nothing grew since
  });

  it("analyses and vacuums a table whose rows were deleted, though it did not grow; the others are left", async () => {
    const counts = async (table: string) => {
      await db.execute(sql`SELECT pg_stat_force_next_flush()`);
      const result = await db.execute(sql`
        SELECT vacuum_count AS vacuums, analyze_count AS analyses FROM pg_stat_user_tables
        WHERE relname = ${table}`);
      const [row] = (result as unknown as { rows: { vacuums: number; analyses: number }[] }).rows;
      return { vacuums: Number(row?.vacuums), analyses: Number(row?.analyses) };
    };
    await maintainTables(db, { sweep: true });
    const [jobs, hosts] = [await counts("server_jobs"), await counts("hypervisors")];
    // Three jobs in four deleted: as many changed and dead rows, and not a page more.
    await db.execute(sql`DELETE FROM server_jobs WHERE id % 4 <> 0`);
    expect(await maintainTables(db, { sweep: false })).toEqual(["server_jobs"]);
    expect(await counts("server_jobs")).toEqual({ vacuums: jobs.vacuums + 1, analyses: jobs.analyses + 1 });
    expect(await counts("hypervisors")).toEqual(hosts);
    expect(await maintainTables(db, { sweep: false })).toEqual([]);
  });

  it("a sweep does every table, pausing after each statement (its VACUUM, its ANALYZE)", async () => {
    let pauses = 0;
    const done = await maintainTables(db, {
      sweep: true,
      between: async () => {
        pauses++;
      },
    });
    expect(done).toEqual(expect.arrayContaining(["accounts", "server_jobs", "servers", "topups"]));
    expect(pauses).toBe(2 * done.length);
  });

  it("analyses a large table from a bounded sample, a small one in full", async () => {
    const buckets = async (table: string, column: string) => {
      const result = await db.execute(sql`
        SELECT array_length(histogram_bounds, 1) AS bounds FROM pg_stats
        WHERE schemaname = 'public' AND tablename = ${table} AND attname = ${column}`);
      return Number((result as unknown as { rows: { bounds: number }[] }).rows[0]?.bounds ?? 0);
    };
    // Over 100 pages (800 KB) of distinct times, and 520 servers of distinct hostnames in fewer.
    await db.execute(sql`
      INSERT INTO order_outcomes (location, os, ordered_at, finished_at, succeeded)
      SELECT 'nl', 'debian-13', t - interval '1 minute', t, true
      FROM generate_series(1, 150000) g, LATERAL (SELECT now() - g * interval '1 second') x(t)`);
    await maintainTables(db, { sweep: false });
    // Ten histogram buckets (11 bounds) at the reduced target; the default's hundred for the small table.
    expect(await buckets("order_outcomes", "finished_at")).toBe(11);
    expect(await buckets("servers", "hostname")).toBe(101);
  }, 60_000);

  it("looks at table sizes at most once per interval", () => {
    expect(checkDue(Number.NEGATIVE_INFINITY, 0)).toBe(true);
    expect(checkDue(1_000, 1_000 + CHECK_INTERVAL_MS - 1)).toBe(false);
    expect(checkDue(1_000, 1_000 + CHECK_INTERVAL_MS)).toBe(true);
  });
});
