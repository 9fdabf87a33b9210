import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLedger } from "@/e2e/support/ledger-check";
import { type Database, db } from "@/lib/db/client";
import { depositPayments, topups, x402Authorizations } from "@/lib/db/schema";
import { dropPayment, observePayments } from "@/lib/rails/deposits/sightings";
import {
  balanceAndLedgerSum,
  createAccount,
  insertOperatorRow,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { settleTopups } from "@/lib/topups/settlement";
import { postAdjustment } from "./adjustments";
import type { Actor } from "./audit";
import { closeOnRail, flaggedPayment, flaggedPayments } from "./payments";

// The rails' own code runs on the process database: an embedded one in a scratch DATA_DIR.
const restoreEnv = scratchConfigEnv();

/**
 * A flagged payment settled by an adjustment is closed on its rail in the adjustment's transaction: whatever
 * the rail sees afterwards, it never credits that payment again (the suites' ledger check holds it too).
 */
describe("a flagged payment settled by an adjustment, on the rails' own code", () => {
  let database: Database;
  let admin: Actor;
  beforeAll(async () => {
    database = await db();
    const operatorId = await insertOperatorRow(database, "ledger-admin");
    admin = { operatorId, name: "ledger-admin", role: "admin", client: "192.0.2.9" };
  }, 120_000);
  afterAll(() => restoreEnv());

  const ledgerProblems = async () =>
    (
      await checkLedger(async (text) => {
        const result = await database.execute(sql.raw(text));
        return (result as unknown as { rows: Record<string, unknown>[] }).rows;
      })
    ).problems;

  it("a dropped deposit payment credited by hand is not credited again when its transaction is mined after all", async () => {
    const accountId = await createAccount(database);
    const [topup] = await database
      .insert(topups)
      .values({
        ref: "tp_dropped_then_mined",
        accountId,
        method: "deposit",
        coin: "LTC",
        network: "litecoin",
        amountCents: 8500,
        depositAddress: "rltc1qdroppedthenmined",
        depositUnits: "100000000",
        rateUsd: "85",
        rateSource: "demo-fixed",
        confirmationsRequired: 6,
        expiresAt: new Date(Date.now() + 3_600_000),
      })
      .returning();
    if (!topup) throw new Error("no top-up");
    const seen = {
      topupId: topup.id,
      txHash: "ab".repeat(32),
      logIndex: 0,
      amountUnits: 100_000_000n,
      blockNumber: null,
      blockHash: null,
      confirmations: 0,
    };
    await observePayments("litecoin", [seen]);
    const [payment] = await database
      .select()
      .from(depositPayments)
      .where(eq(depositPayments.topupId, topup.id));
    if (!payment) throw new Error("no payment");
    expect(await dropPayment(payment.id)).toBe(true);
    expect((await flaggedPayments("attention", { accountId }, database)).map((p) => p.flags)).toEqual([
      ["dropped"],
    ]);

    // The payer shows the operator the transaction; the operator credits it by hand.
    const adjusted = await postAdjustment(
      admin,
      {
        accountId,
        amountCents: 8500,
        reason: "Payer rebroadcast; paid in full",
        payment: `deposit:${payment.id}`,
      },
      database,
    );
    expect(adjusted.status).toBe(201);

    // The transaction is mined after all and confirms: the rail sees it again, the top-ups settle.
    await observePayments("litecoin", [
      { ...seen, blockNumber: 900, blockHash: "cd".repeat(32), confirmations: 6 },
    ]);
    await settleTopups([topup.id], database);
    expect(await balanceAndLedgerSum(database, accountId)).toEqual({ balance: 8500, ledgerSum: 8500 });
    const [after] = await database.select().from(topups).where(eq(topups.id, topup.id));
    expect(after).toMatchObject({ creditedCents: 0, status: "pending" });
    const [settled] = await database.select().from(depositPayments).where(eq(depositPayments.id, payment.id));
    expect(settled).toMatchObject({ settledBy: expect.stringMatching(/^adjustment:/), quoteCents: null });
    // Still listed, as reviewed, with the flag it had.
    expect((await flaggedPayments("reviewed", { accountId }, database)).map((p) => p.id)).toEqual([
      `deposit:${payment.id}`,
    ]);
    expect(await ledgerProblems()).toEqual([]);
  });

  it("an x402 settlement whose outcome was never recorded is closed as adjusted, unless its owner's retry holds it", async () => {
    const accountId = await createAccount(database);
    const authorization = async (leaseUntil: Date) =>
      (
        await database
          .insert(x402Authorizations)
          .values({
            network: "base",
            asset: "0xusdc",
            payer: "0xpayer",
            nonce: `0x${Math.random().toString(16).slice(2)}`,
            accountId,
            state: "in_flight",
            leaseUntil,
          })
          .returning()
      )[0];
    const lapsed = await authorization(new Date(Date.now() - 1000));
    const adjust = (id: number | undefined, key: string) =>
      postAdjustment(
        admin,
        { accountId, amountCents: 3000, reason: "Transfer found on chain", payment: `x402:${id}`, key },
        database,
      );
    expect((await adjust(lapsed?.id, "x-1")).status).toBe(201);
    const [closed] = await database
      .select()
      .from(x402Authorizations)
      .where(eq(x402Authorizations.id, lapsed?.id ?? 0));
    expect(closed).toMatchObject({
      state: "adjusted",
      adjustmentReference: "adjustment:x-1",
      leaseUntil: null,
    });
    // The same key with the payment changed is another adjustment: refused, not answered as the first.
    await expect(
      postAdjustment(
        admin,
        { accountId, amountCents: 3000, reason: "Transfer found on chain", key: "x-1" },
        database,
      ),
    ).rejects.toMatchObject({ status: 422, code: "idempotency_key_reused" });
    await expect(adjust(lapsed?.id, "x-2")).rejects.toMatchObject({
      status: 409,
      code: "payment_already_settled",
    });

    // Lapsed when listed, then taken over by its owner's retry before the adjustment: the retry decides it.
    const retried = await authorization(new Date(Date.now() - 1000));
    const listed = await flaggedPayment(`x402:${retried?.id}`, database);
    await database
      .update(x402Authorizations)
      .set({ leaseUntil: new Date(Date.now() + 60_000) })
      .where(eq(x402Authorizations.id, retried?.id ?? 0));
    await expect(
      database.transaction((tx) => closeOnRail(tx, listed, "adjustment:x-3")),
    ).rejects.toMatchObject({ status: 409, code: "payment_being_settled" });
    // Once its retry credited it from the chain, there is nothing left to adjust.
    await database
      .update(x402Authorizations)
      .set({ state: "settled", leaseUntil: null })
      .where(eq(x402Authorizations.id, retried?.id ?? 0));
    await expect(
      database.transaction((tx) => closeOnRail(tx, listed, "adjustment:x-3")),
    ).rejects.toMatchObject({ status: 409, code: "payment_already_settled" });
    // (A settled authorization without its top-up is not a state the rail leaves: out of the ledger check.)
    await database.delete(x402Authorizations).where(eq(x402Authorizations.id, retried?.id ?? 0));
    expect(await balanceAndLedgerSum(database, accountId)).toEqual({ balance: 3000, ledgerSum: 3000 });
    expect(await ledgerProblems()).toEqual([]);
  });
});
