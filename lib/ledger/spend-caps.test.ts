import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { apiKeys } from "@/lib/db/schema";
import type { ApiKeyScope, SpendCapPeriod } from "@/lib/db/types";
import { balanceAndLedgerSum, createFundedAccount, openMemoryDatabase } from "@/lib/testing/memory-db";
import { postLedgerEntry } from "./ledger";
import { availableCents, capWindow, KeyCannotSpend, keyBudget, SpendCapExceeded } from "./spend-caps";

describe("a cap's periods", () => {
  // Saturday 28 November 2026, late in the day (UTC).
  const at = new Date("2026-11-28T23:59:30Z");

  it("start at 00:00 UTC each day, each Monday and each first of the month, and never for a total", () => {
    expect(capWindow("day", at)).toEqual({
      start: new Date("2026-11-28T00:00:00Z"),
      resetsAt: new Date("2026-11-29T00:00:00Z"),
    });
    expect(capWindow("week", at)).toEqual({
      start: new Date("2026-11-23T00:00:00Z"),
      resetsAt: new Date("2026-11-30T00:00:00Z"),
    });
    expect(capWindow("week", new Date("2026-11-30T00:00:00Z")).start).toEqual(
      new Date("2026-11-30T00:00:00Z"),
    );
    expect(capWindow("month", at)).toEqual({
      start: new Date("2026-11-01T00:00:00Z"),
      resetsAt: new Date("2026-12-01T00:00:00Z"),
    });
    expect(capWindow("month", new Date("2026-12-31T12:00:00Z")).resetsAt).toEqual(
      new Date("2027-01-01T00:00:00Z"),
    );
    expect(capWindow("total", at)).toEqual({ start: null, resetsAt: null });
  });
});

describe("spend caps, where the debit is written", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  let keys = 0;
  async function key(
    accountId: number,
    values: {
      scopes?: ApiKeyScope[] | null;
      cap?: [number, SpendCapPeriod];
      parent?: number;
    } = {},
  ): Promise<number> {
    const [row] = await db
      .insert(apiKeys)
      .values({
        accountId,
        keyHash: `hash-${++keys}-${Math.random()}`,
        prefix: "vpsk_test",
        scopes: values.scopes ?? null,
        spendCapCents: values.cap?.[0] ?? null,
        spendCapPeriod: values.cap?.[1] ?? null,
        parentKeyId: values.parent ?? null,
      })
      .returning({ id: apiKeys.id });
    if (!row) throw new Error("key insert returned no row");
    return row.id;
  }

  let charges = 0;
  const charge = (accountId: number, apiKeyId: number | null, cents: number) =>
    db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: -cents,
        kind: "order",
        reference: `order:test:${++charges}`,
        apiKeyId,
      }),
    );

  it("lets a key debit up to its cap and refuses the debit that would pass it, changing nothing", async () => {
    const accountId = await createFundedAccount(db, 10_000);
    const capped = await key(accountId, { cap: [1000, "day"] });
    expect((await charge(accountId, capped, 600)).posted).toBe(true);
    const refused = await charge(accountId, capped, 500).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SpendCapExceeded);
    expect((refused as SpendCapExceeded).cap).toMatchObject({
      keyId: capped,
      capCents: 1000,
      spentCents: 600,
      period: "day",
      depth: 0,
    });
    expect((refused as SpendCapExceeded).amountCents).toBe(500);
    expect((await charge(accountId, capped, 400)).posted).toBe(true);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 9000, ledgerSum: 9000 });
  });

  it("counts what a key's own keys spend against its cap, and each key's own cap as well", async () => {
    const accountId = await createFundedAccount(db, 10_000);
    const parent = await key(accountId, { cap: [1000, "total"] });
    const child = await key(accountId, { cap: [900, "month"], parent });
    const grandchild = await key(accountId, { cap: [900, "week"], parent: child });
    await charge(accountId, grandchild, 500);
    await charge(accountId, parent, 300);
    const budget = await keyBudget(db, accountId, grandchild, new Date());
    expect(budget.caps.map((cap) => [cap.keyId, cap.spentCents])).toEqual([
      [grandchild, 500],
      [child, 500],
      [parent, 800],
    ]);
    expect(availableCents(budget.caps)).toBe(200);
    // The parent's cap bites first, though the grandchild's own has room.
    const refused = await charge(accountId, grandchild, 201).catch((error: unknown) => error);
    expect((refused as SpendCapExceeded).cap).toMatchObject({ keyId: parent, depth: 2 });
    expect((await charge(accountId, grandchild, 200)).posted).toBe(true);
  });

  it("refuses any debit by a key without the spending scope, and leaves the account's own debits uncounted", async () => {
    const accountId = await createFundedAccount(db, 5000);
    const reader = await key(accountId, { scopes: ["servers:read"] });
    await expect(charge(accountId, reader, 100)).rejects.toBeInstanceOf(KeyCannotSpend);
    const spender = await key(accountId, {
      scopes: ["billing:spend", "servers:read", "account:read"],
      cap: [100, "total"],
    });
    // A renewal the background makes is the account's own: no key is named, no cap counts it.
    await charge(accountId, null, 1000);
    expect((await keyBudget(db, accountId, spender, new Date())).caps[0]?.spentCents).toBe(0);
    expect((await charge(accountId, spender, 100)).posted).toBe(true);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 3900, ledgerSum: 3900 });
  });

  it("lets exactly the debits that fit through when they race", async () => {
    const accountId = await createFundedAccount(db, 10_000);
    const capped = await key(accountId, { cap: [1000, "month"] });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => charge(accountId, capped, 400)),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(2);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 9200, ledgerSum: 9200 });
  });
});
