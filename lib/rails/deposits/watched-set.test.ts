import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { createAccount, scratchConfigEnv } from "@/lib/testing/memory-db";
import { advanceClock, now } from "@/lib/util/clock";
import { stillWatched, WatchedAddresses } from "./watched-set";

// config() is read on first use: the process database is an embedded one in a scratch DATA_DIR, and
// closed top-ups stay watched for 2 hours.
const restoreEnv = scratchConfigEnv({ LATE_PAYMENT_WINDOW_HOURS: "2" });

let accountId: number;

/** A deposit top-up on `network` with this id (ids may commit out of order), created `agoMs` ago. */
async function topup(id: number, network: string, address: string, agoMs = 0) {
  const database = await db();
  await database.execute(sql`INSERT INTO topups (id, ref, account_id, method, coin, network, amount_cents,
      deposit_address, derivation_index, deposit_units, rate_usd, rate_source, confirmations_required,
      expires_at, created_at)
    OVERRIDING SYSTEM VALUE
    VALUES (${id}, ${`watched-${id}`}, ${accountId}, 'deposit', 'ETH', ${network}, 2500, ${address}, ${id},
      1, 1, 'test', 3, now() + interval '30 minutes', now() - ${`${agoMs} milliseconds`}::interval)`);
}

async function close(id: number) {
  const database = await db();
  await database.execute(sql`UPDATE topups SET status = 'cancelled', closed_at = ${now()} WHERE id = ${id}`);
}

describe("the watched addresses a watcher holds in memory", () => {
  beforeAll(async () => {
    accountId = await createAccount(await db());
  }, 120_000);
  afterAll(() => restoreEnv());

  it("reads new top-ups and closings incrementally, and drops those whose window has ended", async () => {
    const set = new WatchedAddresses<string>(["net-a"], (row) => row.address);
    await topup(100, "net-a", "a-100", 10 * 60_000);
    await topup(101, "net-b", "b-101");
    await set.sync();
    expect(set.size).toBe(1);
    expect(set.get("a-100")).toMatchObject({ topupId: 100, coin: "ETH", closedAtMs: null });
    expect(set.count("ETH")).toBe(1);

    // A top-up whose transaction committed after one with a higher id had been read is still found.
    await topup(110, "net-a", "a-110");
    await set.sync();
    await topup(105, "net-a", "a-105");
    await set.sync();
    expect(set.get("a-105")?.topupId).toBe(105);
    expect(set.highestDerivationIndex).toBe(110);

    await close(100);
    await set.sync();
    expect(set.get("a-100")?.closedAtMs).toBeTypeOf("number");
    expect(await stillWatched([100, 101, 105, 999])).toEqual(new Set([100, 101, 105]));

    // Past the late-payment window the closed one is no longer watched, in memory or in the database.
    advanceClock(3 * 3600);
    await set.sync();
    expect(set.get("a-100")).toBeUndefined();
    expect(set.get("a-105")?.topupId).toBe(105);
    expect(set.size).toBe(2);
    expect(await stillWatched([100, 105])).toEqual(new Set([105]));
  }, 60_000);

  it("its sweep adds a row the incremental reads passed over and drops one that is gone", async () => {
    const set = new WatchedAddresses<string>(["net-c"], (row) => row.address);
    await topup(300, "net-c", "c-300", 10 * 60_000);
    await topup(310, "net-c", "c-310", 10 * 60_000);
    await set.sync();
    expect(set.size).toBe(2);
    // Committed long after its id was taken (ids up to 310 were read): the reads of new rows skip it.
    await topup(305, "net-c", "c-305", 10 * 60_000);
    const database = await db();
    await database.execute(sql`DELETE FROM topups WHERE id = 300`);
    await set.sync();
    expect(set.get("c-305")?.topupId).toBe(305);
    expect(set.get("c-300")).toBeUndefined();
    expect(set.size).toBe(2);
  }, 60_000);

  it("reads the set in slices at first: not ready until every slice is in, and closings meanwhile are seen", async () => {
    // One slice of two rows per sync, as a sync over its time budget would stop.
    const set = new WatchedAddresses<string>(["net-d"], (row) => row.address, { batch: 2, budgetMs: 0 });
    for (const id of [500, 501, 502, 503, 504]) await topup(id, "net-d", `d-${id}`, 10 * 60_000);
    expect(await set.sync()).toBe(false);
    expect(set.size).toBe(2);
    expect(await set.sync()).toBe(false);
    expect(set.size).toBe(4);
    // Closed after its slice was read, and a new top-up made while the load goes on.
    await close(500);
    await topup(505, "net-d", "d-505");
    // A slow load: the rest comes more than the two minutes later that closings are otherwise read back for.
    advanceClock(5 * 60);
    expect(await set.sync()).toBe(false);
    expect(set.size).toBe(6);
    expect(set.get("d-500")?.closedAtMs).toBeNull();
    expect(await set.sync()).toBe(true);
    // Once loaded, the next sync brings the closing in (read among the closings since the load began).
    expect(await set.sync()).toBe(true);
    expect(set.get("d-500")?.closedAtMs).toBeTypeOf("number");
    expect(set.get("d-505")?.topupId).toBe(505);
    expect(set.size).toBe(6);
  }, 60_000);
});
