import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import type { Database } from "@/lib/db/client";
import { serverJobs, servers } from "@/lib/db/schema";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  insertServer,
  openMemoryDatabase,
} from "@/lib/testing/memory-db";
import { renewInTx } from "./billing";

const DAY = 86_400_000;

describe("renewal, directly against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  async function fundedServer(balanceCents: number, status: "active" | "suspended", expiresAt: Date) {
    const accountId = await createFundedAccount(db, balanceCents);
    const row = await insertServer(db, accountId, { status, expiresAt });
    return { accountId, row };
  }

  it("charges one cycle from the old expiry, keeps balance = ledger, and never charges a period twice", async () => {
    const clock = new Date("2026-03-01T00:00:00Z");
    const expiry = new Date(clock.getTime() + 3 * DAY);
    const { accountId, row } = await fundedServer(1000, "active", expiry);
    const renewed = await db.transaction((tx) => renewInTx(tx, row, null, clock));
    expect(renewed.expiresAt.toISOString()).toBe("2026-04-04T00:00:00.000Z");
    expect(renewed.status).toBe("active");
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 600, ledgerSum: 600 });

    // The same period again (a replayed row): refused, nothing moves.
    const replay = db.transaction((tx) => renewInTx(tx, row, null, clock));
    await expect(replay).rejects.toMatchObject({ code: "already_charged" });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 600, ledgerSum: 600 });
  });

  it("brings a suspended server back from now, not from its old expiry, and queues its start", async () => {
    const clock = new Date("2026-05-20T12:00:00Z");
    const { accountId, row } = await fundedServer(400, "suspended", new Date(clock.getTime() - 2 * DAY));
    const renewed = await db.transaction((tx) => renewInTx(tx, row, null, clock));
    expect(renewed.status).toBe("active");
    expect(renewed.powerState).toBe("running");
    expect(renewed.expiresAt.toISOString()).toBe("2026-06-20T12:00:00.000Z");
    const jobs = await db.select().from(serverJobs).where(eq(serverJobs.serverId, row.id));
    expect(jobs.map((job) => [job.kind, job.action])).toEqual([["power", "start"]]);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 0, ledgerSum: 0 });
  });

  it("refuses with 402 when the balance is short, changing nothing", async () => {
    const clock = new Date("2026-07-01T00:00:00Z");
    const { accountId, row } = await fundedServer(399, "active", clock);
    const error = await db
      .transaction((tx) => renewInTx(tx, row, null, clock))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).status, (error as ApiError).code]).toEqual([402, "insufficient_balance"]);
    const [after] = await db.select().from(servers).where(eq(servers.id, row.id));
    expect(after?.expiresAt.toISOString()).toBe(clock.toISOString());
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 399, ledgerSum: 399 });
  });
});
