import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { readCursor, saveCursor } from "@/lib/rails/deposits/cursor";
import type { DepositWatcher } from "@/lib/rails/deposits/watcher";
import { scratchConfigEnv } from "@/lib/testing/memory-db";
import { processWide } from "@/lib/util/process-wide";
import * as runner from "./runner";

// config() is read on first use: the process database is an embedded one in a scratch DATA_DIR.
const restoreEnv = scratchConfigEnv();

/** What another app instance does to the lease row once it holds it: scan on from where it stands. */
async function otherInstanceTakesOver(name: string, scannedBlock: number) {
  const database = await db();
  await database.execute(sql`UPDATE chain_cursors SET lease_owner = 'other-instance',
    lease_until = now() + interval '1 minute', scanned_block = ${scannedBlock} WHERE network = ${name}`);
}

/** Another instance trying to take the lease the way acquireLease does: only once it has run out. */
async function otherInstanceTries(name: string): Promise<boolean> {
  const database = await db();
  const result = await database.execute(sql`UPDATE chain_cursors SET lease_owner = 'other-instance',
    lease_until = now() + interval '1 minute' WHERE network = ${name}
      AND (lease_until IS NULL OR lease_until < now() OR lease_owner = 'other-instance') RETURNING network`);
  return (result as unknown as { rows: unknown[] }).rows.length > 0;
}

/** A watcher whose poll reads its cursor, lets `during` happen, then saves one block further. */
function slowWatcher(name: string, during: (signal?: AbortSignal) => Promise<void>) {
  const seen: { aborted: boolean } = { aborted: false };
  const watcher: DepositWatcher = {
    name,
    demo: false,
    networks: [],
    async poll(signal) {
      const cursor = await readCursor(name);
      await during(signal);
      seen.aborted = signal?.aborted ?? false;
      const next = (cursor?.scannedBlock ?? -1) + 10;
      await saveCursor(name, { scannedBlock: next, scannedHash: null, headBlock: next }, cursor);
      return [];
    },
  };
  return { watcher, seen };
}

describe("watcher leases during long polls", () => {
  beforeAll(async () => {
    await db();
  }, 120_000);
  afterAll(() => restoreEnv());

  it("a poll that lost its lease to another instance never moves the cursor back", async () => {
    const name = "test:overtaken";
    const { watcher } = slowWatcher(name, () => otherInstanceTakesOver(name, 500));
    // The pass runs the deposit watchers it is given (here, only this one).
    const rails = processWide("deposits.rails", () => ({ watchers: [] as DepositWatcher[] }));
    rails.watchers = [watcher];
    await runner.runWatcherPass();
    const cursor = await readCursor(name);
    expect(cursor?.scannedBlock).toBe(500);
    expect(cursor?.leaseOwner).toBe("other-instance");
  }, 60_000);

  it("deposit rails that cannot be built do not stop the pass (the server lifecycle runs after it)", async () => {
    const rails = processWide("deposits.rails", () => ({ watchers: [] as DepositWatcher[] }));
    Object.defineProperty(rails, "watchers", {
      configurable: true,
      get: () => {
        throw new RangeError("not a TRON address (bad base58check): TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u");
      },
    });
    try {
      await expect(runner.runWatcherPass()).resolves.toBeUndefined();
    } finally {
      Object.defineProperty(rails, "watchers", { configurable: true, writable: true, value: [] });
    }
  }, 60_000);

  it("the lease is renewed while a poll runs longer than it lasts, so no other instance takes the chain", async () => {
    const name = "test:long-poll";
    let taken = false;
    const { watcher, seen } = slowWatcher(name, async () => {
      const until = Date.now() + 2_500;
      while (Date.now() < until) {
        taken ||= await otherInstanceTries(name);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    await runner.pollUnderLease(watcher, 900);
    expect(taken).toBe(false);
    expect(seen.aborted).toBe(false);
    expect((await readCursor(name))?.scannedBlock).toBe(9);
  }, 60_000);

  it("a poll whose lease is taken from it is told to stop, and its position is not saved", async () => {
    const name = "test:lease-lost";
    const { watcher, seen } = slowWatcher(name, async (signal) => {
      await otherInstanceTakesOver(name, 42);
      const until = Date.now() + 3_000;
      while (!signal?.aborted && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    });
    await expect(runner.pollUnderLease(watcher, 600)).rejects.toThrow(/lease passed to another instance/);
    expect(seen.aborted).toBe(true);
    expect((await readCursor(name))?.scannedBlock).toBe(42);
  }, 60_000);
});
