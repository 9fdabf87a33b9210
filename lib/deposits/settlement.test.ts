import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { depositPayments, ledgerEntries, topups } from "@/lib/db/schema";
import { balanceAndLedgerSum, createAccount, openMemoryDatabase } from "@/lib/testing/memory-db";
import { settleTopups } from "./crediting";

const T0 = new Date("2026-04-01T10:00:00Z");

describe("settling deposit top-ups, directly against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  /** A 50 USD BTC top-up asking 0.001 BTC (100,000 sat) at 50,000 USD, 2 confirmations, expiring in 30 min. */
  async function btcTopup(accountId: number, ref: string) {
    const [row] = await db
      .insert(topups)
      .values({
        ref,
        accountId,
        method: "deposit",
        coin: "BTC",
        network: "bitcoin",
        amountCents: 5000,
        depositAddress: `bcrt1q${ref}`,
        depositUnits: "100000",
        rateUsd: "50000",
        rateSource: "test",
        confirmationsRequired: 2,
        createdAt: T0,
        expiresAt: new Date(T0.getTime() + 30 * 60_000),
      })
      .returning();
    if (!row) throw new Error("no top-up row");
    return row;
  }
  const pay = async (topupId: number, tx: string, sats: string, confirmations: number) => {
    const [row] = await db
      .insert(depositPayments)
      .values({ topupId, network: "bitcoin", txHash: tx, logIndex: -1, amountUnits: sats, confirmations })
      .returning({ id: depositPayments.id });
    return row?.id ?? 0;
  };
  const state = async (id: number) => {
    const [row] = await db.select().from(topups).where(eq(topups.id, id));
    return { status: row?.status, credited: row?.creditedCents };
  };

  it("credits confirmed payments once, part by part, and completes when they cover the amount", async () => {
    const accountId = await createAccount(db);
    const topup = await btcTopup(accountId, "tpsettle1");
    const clock = () => new Date(T0.getTime() + 5 * 60_000);

    const first = await pay(topup.id, "tx1", "50000", 1);
    await settleTopups([topup.id], db, clock);
    expect(await state(topup.id)).toEqual({ status: "pending", credited: 0 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 0, ledgerSum: 0 });

    await db.update(depositPayments).set({ confirmations: 2 }).where(eq(depositPayments.id, first));
    await settleTopups([topup.id], db, clock);
    expect(await state(topup.id)).toEqual({ status: "pending", credited: 2500 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 2500, ledgerSum: 2500 });

    await pay(topup.id, "tx2", "50000", 6);
    await settleTopups([topup.id, topup.id], db, clock);
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 5000 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 5000, ledgerSum: 5000 });

    // Settling again changes nothing: the credit is keyed by what it brings the top-up to.
    await settleTopups([topup.id], db, clock);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 5000, ledgerSum: 5000 });
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
    expect(rows.map((row) => [row.kind, row.amountCents])).toEqual([
      ["topup", 2500],
      ["topup", 2500],
    ]);
  });

  it("expires an unpaid top-up by the clock it is given, crediting nothing", async () => {
    const accountId = await createAccount(db);
    const topup = await btcTopup(accountId, "tpsettle2");
    await settleTopups([topup.id], db, () => new Date(T0.getTime() + 29 * 60_000));
    expect(await state(topup.id)).toEqual({ status: "pending", credited: 0 });
    await settleTopups([topup.id], db, () => new Date(T0.getTime() + 31 * 60_000));
    expect(await state(topup.id)).toEqual({ status: "expired", credited: 0 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 0, ledgerSum: 0 });
  });

  it("still credits a payment that confirms after expiry", async () => {
    const accountId = await createAccount(db);
    const topup = await btcTopup(accountId, "tpsettle3");
    await settleTopups([topup.id], db, () => new Date(T0.getTime() + 31 * 60_000));
    expect((await state(topup.id)).status).toBe("expired");
    await pay(topup.id, "tx3", "100000", 2);
    await settleTopups([topup.id], db, () => new Date(T0.getTime() + 60 * 60_000));
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 5000 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 5000, ledgerSum: 5000 });
  });
});
