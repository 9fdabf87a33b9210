import { and, eq, gt, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { depositPayments, topups } from "@/lib/db/schema";
import { btcTopupValues, createAccount, scratchConfigEnv } from "@/lib/testing/memory-db";
import { settleOutstandingTopups } from "./settlement";

// config() is read on first use: the process database is an embedded one in a scratch DATA_DIR.
const restoreEnv = scratchConfigEnv();
afterAll(() => restoreEnv());

const HOUR = 3_600_000;

/**
 * The watchers' safety net, behind a long history: it finds the few top-ups still watched (pending, or closed
 * inside the late-payment window) among many closed long ago, and settles those whose payments call for it.
 */
describe("the settlement sweep", () => {
  const outstanding: number[] = [];
  let recentlyClosed = 0;
  let oldHistory: number[] = [];

  beforeAll(async () => {
    const database = await db();
    const accountId = await createAccount(database);
    const topup = (ref: string, status: "pending" | "completed", closedAt: Date | null) =>
      btcTopupValues(accountId, ref, {
        status,
        creditedCents: status === "completed" ? 5000 : 0,
        expiresAt: new Date(Date.now() + (status === "pending" ? 1 : -30 * 24) * HOUR),
        closedAt,
      });
    // Closed a month ago, long out of the late-payment window: history the sweep must not walk.
    const history = await database
      .insert(topups)
      .values(
        Array.from({ length: 450 }, (_, i) =>
          topup(`old${i}`, "completed", new Date(Date.now() - 720 * HOUR)),
        ),
      )
      .returning({ id: topups.id });
    oldHistory = history.map((row) => row.id);
    const [recent] = await database
      .insert(topups)
      .values(topup("recent", "completed", new Date(Date.now() - HOUR)))
      .returning({ id: topups.id });
    recentlyClosed = recent?.id ?? 0;
    for (let i = 0; i < 3; i++) {
      const [row] = await database
        .insert(topups)
        .values(topup(`due${i}`, "pending", null))
        .returning({ id: topups.id });
      outstanding.push(row?.id ?? 0);
    }
    // Every top-up has its payment: the closed ones' counted when they completed; the pending ones' are
    // confirmed enough but not yet credited.
    const payment = (topupId: number, counted: boolean) => ({
      topupId,
      network: "bitcoin",
      txHash: `tx-${topupId}`,
      logIndex: -1,
      amountUnits: "100000",
      confirmations: 6,
      seenAt: new Date(Date.now() - 10 * 60_000),
      ...(counted
        ? { confirmedAt: new Date(Date.now() - HOUR), quoteUnits: "100000", quoteCents: 5000 }
        : {}),
    });
    await database
      .insert(depositPayments)
      .values([
        ...[...oldHistory, recentlyClosed].map((id) => payment(id, true)),
        ...outstanding.map((id) => payment(id, false)),
      ]);
  }, 120_000);

  it("credits the watched top-ups whose payments confirmed, and leaves the history as it was", async () => {
    await settleOutstandingTopups();
    const database = await db();
    const settled = await database
      .select({ status: topups.status, credited: topups.creditedCents })
      .from(topups)
      .where(inArray(topups.id, outstanding));
    expect(settled).toEqual(outstanding.map(() => ({ status: "completed", credited: 5000 })));
    const [recent] = await database.select().from(topups).where(eq(topups.id, recentlyClosed));
    expect([recent?.status, recent?.creditedCents]).toEqual(["completed", 5000]);
    // Nothing of the history was written: every row keeps its first revision (migration 0031).
    const history = await database
      .select({ revision: topups.revision })
      .from(topups)
      .where(inArray(topups.id, oldHistory));
    const payments = await database
      .select({ revision: depositPayments.revision })
      .from(depositPayments)
      .where(inArray(depositPayments.topupId, oldHistory));
    expect(new Set([...history, ...payments].map((row) => row.revision))).toEqual(new Set([1]));
    expect(payments).toHaveLength(oldHistory.length);
  });
});

/**
 * More late payments than one pass checks, on top-ups closed inside the window: settled, each stays where it
 * was in the closed index, so only a sweep that moves on past what it checked reaches the rest.
 */
describe("the settlement sweep, pass after pass", () => {
  const paidLate: number[] = [];

  beforeAll(async () => {
    const database = await db();
    const accountId = await createAccount(database);
    const rows = await database
      .insert(topups)
      .values(
        Array.from({ length: 250 }, (_, i) =>
          btcTopupValues(accountId, `late${i}`, {
            status: "completed",
            amountCents: 100,
            depositUnits: "2000",
            confirmationsRequired: 1,
            creditedCents: 100,
            expiresAt: new Date(Date.now() - 2 * HOUR),
            // Some closed at the same moment: the cursor orders them by id there.
            closedAt: new Date(Date.now() - HOUR - Math.floor(i / 10) * 1000),
          }),
        ),
      )
      .returning({ id: topups.id });
    paidLate.push(...rows.map((row) => row.id));
    const payment = (topupId: number, late: boolean) => ({
      topupId,
      network: "bitcoin",
      txHash: `tx-${late ? "late" : "paid"}-${topupId}`,
      logIndex: -1,
      amountUnits: "2000",
      confirmations: 3,
      seenAt: new Date(Date.now() - (late ? 10 * 60_000 : 3 * HOUR)),
      ...(late ? {} : { confirmedAt: new Date(Date.now() - HOUR), quoteUnits: "2000", quoteCents: 100 }),
    });
    await database
      .insert(depositPayments)
      .values(paidLate.flatMap((topupId) => [payment(topupId, false), payment(topupId, true)]));
  }, 120_000);

  const creditedLate = async () => {
    const database = await db();
    const rows = await database
      .select({ id: topups.id })
      .from(topups)
      .where(and(inArray(topups.id, paidLate), gt(topups.creditedCents, 100)));
    return rows.length;
  };

  it("credits part of them per pass and all of them within three", async () => {
    await settleOutstandingTopups();
    const afterOne = await creditedLate();
    expect(afterOne).toBeGreaterThan(0);
    expect(afterOne).toBeLessThan(paidLate.length);
    await settleOutstandingTopups();
    await settleOutstandingTopups();
    expect(await creditedLate()).toBe(paidLate.length);
  });
});
