import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { depositPayments, ledgerEntries, topups } from "@/lib/db/schema";
import {
  balanceAndLedgerSum,
  btcTopupValues,
  createAccount,
  openMemoryDatabase,
} from "@/lib/testing/memory-db";
import { settleTopups } from "./settlement";

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
      .values(
        btcTopupValues(accountId, ref, { createdAt: T0, expiresAt: new Date(T0.getTime() + 30 * 60_000) }),
      )
      .returning();
    if (!row) throw new Error("no top-up row");
    return row;
  }
  /** A payment seen (by default) 5 minutes into the quote's 30. */
  const pay = async (
    topupId: number,
    tx: string,
    sats: string,
    confirmations: number,
    seenAt = new Date(T0.getTime() + 5 * 60_000),
  ) => {
    const [row] = await db
      .insert(depositPayments)
      .values({
        topupId,
        network: "bitcoin",
        txHash: tx,
        logIndex: -1,
        amountUnits: sats,
        confirmations,
        seenAt,
      })
      .returning({ id: depositPayments.id });
    return row?.id ?? 0;
  };
  /** The market as the rate source tells it, counting how often it is asked. */
  const market = (usd: string | null) => {
    const asked: string[] = [];
    const rate = async (coin: string) => {
      asked.push(coin);
      return usd;
    };
    return Object.assign(rate, { asked });
  };
  const credits = async (topupId: number) =>
    (await db.select().from(depositPayments).where(eq(depositPayments.topupId, topupId))).map((row) => ({
      tx: row.txHash,
      quoteCents: row.quoteCents,
      extraCents: row.extraCents,
      extraRateUsd: row.extraRateUsd,
    }));
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
    await pay(topup.id, "tx3", "100000", 2, new Date(T0.getTime() + 45 * 60_000));
    await settleTopups([topup.id], db, () => new Date(T0.getTime() + 60 * 60_000), market("50000"));
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 5000 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 5000, ledgerSum: 5000 });
  });

  it("values a late payment at the market rate when it is lower, and never above the locked rate", async () => {
    const accountId = await createAccount(db);
    const topup = await btcTopup(accountId, "tpsettle4");
    const lateSeen = new Date(T0.getTime() + 40 * 60_000);
    const clock = () => new Date(T0.getTime() + 50 * 60_000);
    await pay(topup.id, "tx4a", "100000", 2, lateSeen);
    await settleTopups([topup.id], db, clock, market("25000"));
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 2500 });
    // A second late payment after the price rose past the locked rate: worth the locked rate at most.
    await pay(topup.id, "tx4b", "100000", 2, lateSeen);
    await settleTopups([topup.id], db, clock, market("80000"));
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 7500 });
    expect(await credits(topup.id)).toEqual([
      { tx: "tx4a", quoteCents: 0, extraCents: 2500, extraRateUsd: "25000.00000000" },
      { tx: "tx4b", quoteCents: 0, extraCents: 5000, extraRateUsd: "50000.00000000" },
    ]);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 7500, ledgerSum: 7500 });
  });

  it("credits an overpayment in time: the asked amount at the quote, the rest at the lower rate", async () => {
    const accountId = await createAccount(db);
    const topup = await btcTopup(accountId, "tpsettle5");
    await pay(topup.id, "tx5", "300000", 2);
    await settleTopups([topup.id], db, () => new Date(T0.getTime() + 10 * 60_000), market("40000"));
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 5000 + 8000 });
    expect(await credits(topup.id)).toEqual([
      { tx: "tx5", quoteCents: 5000, extraCents: 8000, extraRateUsd: "40000.00000000" },
    ]);
  });

  it("asks the market only when a payment needs it, and credits the exact amount without it", async () => {
    const accountId = await createAccount(db);
    const topup = await btcTopup(accountId, "tpsettle6");
    await pay(topup.id, "tx6", "100000", 2);
    const rate = market("1");
    await settleTopups([topup.id], db, () => new Date(T0.getTime() + 10 * 60_000), rate);
    expect(rate.asked).toEqual([]);
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 5000 });
  });

  it("holds a late payment while no rate is known, then credits it once, in one ledger row", async () => {
    const accountId = await createAccount(db);
    const topup = await btcTopup(accountId, "tpsettle7");
    const clock = () => new Date(T0.getTime() + 60 * 60_000);
    await settleTopups([topup.id], db, clock);
    expect((await state(topup.id)).status).toBe("expired");
    const lateSeen = new Date(T0.getTime() + 45 * 60_000);
    await pay(topup.id, "tx7a", "60000", 2, lateSeen);
    await pay(topup.id, "tx7b", "60000", 3, lateSeen);
    const unavailable = market(null);
    await settleTopups([topup.id, topup.id], db, clock, unavailable);
    expect(unavailable.asked).toEqual(["BTC"]);
    expect(await state(topup.id)).toEqual({ status: "expired", credited: 0 });
    expect((await credits(topup.id)).every((row) => row.quoteCents === null)).toBe(true);

    await settleTopups([topup.id], db, clock, market("50000"));
    await settleTopups([topup.id], db, clock, market("10"));
    expect(await state(topup.id)).toEqual({ status: "completed", credited: 6000 });
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));
    expect(rows.map((row) => [row.reference, row.amountCents])).toEqual([["topup:tpsettle7:6000", 6000]]);
  });
});
