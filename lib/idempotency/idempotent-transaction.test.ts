import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { balanceAndLedgerSum, createFundedAccount, openMemoryDatabase } from "@/lib/testing/memory-db";
import { fingerprint, withIdempotentTransaction } from "./idempotency";

describe("idempotent money-moving work, directly against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  /** A debit of `cents` under an Idempotency-Key, as an order or renewal makes one. */
  const charge = (accountId: number, key: string | undefined, cents: number, reference: string) =>
    withIdempotentTransaction(
      { accountId, operation: "POST /charge", key, fingerprint: fingerprint({ cents }) },
      async (tx) => {
        const posted = await postLedgerEntry(tx, {
          accountId,
          amountCents: -cents,
          kind: "order",
          reference,
          apiKeyId: null,
        });
        return { status: 201, body: { balance: posted.balanceAfterCents }, unstored: { secret: "once" } };
      },
      db,
    );

  it("does the work once per key: a retry replays the stored answer and moves no money", async () => {
    const accountId = await createFundedAccount(db, 1000);
    const first = await charge(accountId, "k1", 300, `order:${accountId}:1`);
    expect(first).toMatchObject({ status: 201, body: { balance: 700, secret: "once" } });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 700, ledgerSum: 700 });

    // A retry would post under a new reference if the work ran again: it must not.
    const retry = await charge(accountId, "k1", 300, `order:${accountId}:2`);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual({ balance: 700 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 700, ledgerSum: 700 });
  });

  it("refuses the key with another body (422) and forgets a failed attempt", async () => {
    const accountId = await createFundedAccount(db, 500);
    await charge(accountId, "k2", 100, `order:${accountId}:1`);
    await expect(charge(accountId, "k2", 200, `order:${accountId}:2`)).rejects.toMatchObject({
      status: 422,
      code: "idempotency_key_reused",
    });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 400, ledgerSum: 400 });

    // An overdraft fails inside the transaction: nothing is stored, so the same key may be used again.
    await expect(charge(accountId, "k3", 900, `order:${accountId}:3`)).rejects.toThrow();
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 400, ledgerSum: 400 });
    const again = await charge(accountId, "k3", 400, `order:${accountId}:4`);
    expect(again.body).toMatchObject({ balance: 0 });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 0, ledgerSum: 0 });
  });
});
