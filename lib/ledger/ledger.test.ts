import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { balanceAndLedgerSum, createAccount, openMemoryDatabase } from "@/lib/testing/memory-db";
import { postLedgerEntry } from "./ledger";

describe("the ledger, on the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  // Starting an embedded database is slow on a loaded machine: give setup the time it needs.
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  it("moves the balance by each entry, keeps it equal to the sum of the ledger, and posts a reference once", async () => {
    const accountId = await createAccount(db);
    const credit = await db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: 5000,
        kind: "topup",
        reference: "topup:a:5000",
        apiKeyId: null,
      }),
    );
    expect(credit).toEqual({ posted: true, balanceAfterCents: 5000 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 5000, ledgerSum: 5000 });

    const again = await db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: 5000,
        kind: "topup",
        reference: "topup:a:5000",
        apiKeyId: null,
      }),
    );
    expect(again).toEqual({ posted: false });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 5000, ledgerSum: 5000 });

    const debit = await db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: -1234,
        kind: "order",
        reference: "order:server:1",
        apiKeyId: null,
      }),
    );
    expect(debit).toEqual({ posted: true, balanceAfterCents: 3766 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 3766, ledgerSum: 3766 });
  });

  it("refuses an overdraft in the database itself, leaving balance and ledger as they were", async () => {
    const accountId = await createAccount(db);
    await db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: 100,
        kind: "topup",
        reference: `topup:b:${accountId}`,
        apiKeyId: null,
      }),
    );
    await expect(
      db.transaction((tx) =>
        postLedgerEntry(tx, {
          accountId,
          amountCents: -101,
          kind: "order",
          reference: `order:b:${accountId}`,
          apiKeyId: null,
        }),
      ),
    ).rejects.toThrow();
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 100, ledgerSum: 100 });
  });

  it("takes only non-zero whole cents", async () => {
    const accountId = await createAccount(db);
    for (const amountCents of [0, 1.5, Number.NaN]) {
      await expect(
        db.transaction((tx) =>
          postLedgerEntry(tx, {
            accountId,
            amountCents,
            kind: "topup",
            reference: `bad:${amountCents}`,
            apiKeyId: null,
          }),
        ),
      ).rejects.toThrow(RangeError);
    }
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 0, ledgerSum: 0 });
  });
});
