import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { createAccount, openMemoryDatabase } from "@/lib/testing/memory-db";
import { derivationGaps } from "./gaps";

describe("derivation gaps: how far a restored wallet must look past unpaid addresses", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => close());

  async function handOut(
    network: string,
    count: number,
    paidIndexes: number[],
    droppedIndexes: number[] = [],
  ) {
    const accountId = await createAccount(db);
    await db.execute(sql`INSERT INTO deposit_indexes (chain, next_index) VALUES (${network}, ${count})`);
    for (let i = 0; i < count; i++) {
      const [row] = (
        (await db.execute(sql`INSERT INTO topups (ref, account_id, method, coin, network, amount_cents,
            deposit_address, derivation_index, deposit_units, rate_usd, rate_source, confirmations_required)
          VALUES (${`${network}-${i}`}, ${accountId}, 'deposit', 'BTC', ${network}, 2500, ${`${network}-addr-${i}`},
            ${i}, 1, 1, 'test', 1) RETURNING id`)) as unknown as { rows: { id: number }[] }
      ).rows;
      const paid = paidIndexes.includes(i);
      if (!paid && !droppedIndexes.includes(i)) continue;
      await db.execute(sql`INSERT INTO deposit_payments (topup_id, network, tx_hash, log_index, amount_units,
          dropped_at) VALUES (${row?.id}, ${network}, ${`tx-${network}-${i}`}, 0, 1, ${paid ? null : new Date()})`);
    }
  }

  it("finds the longest unpaid run before a paid index, or after the last one", async () => {
    // Indexes 0..29: paid 3 and 25 (21 unpaid between), 27 only dropped; 2 unpaid after the last paid.
    await handOut("bitcoin", 28, [3, 25], [27]);
    // Indexes 0..9, nothing paid: the whole run is what the next payment must be found past.
    await handOut("monero", 10, []);
    const gaps = await derivationGaps(db);
    expect(gaps.map(({ firstHandedOut: _, ...gap }) => gap)).toEqual([
      { chain: "bitcoin", handedOut: 28, paid: 2, longestUnpaidRun: 21, gapLimit: 22 },
      { chain: "monero", handedOut: 10, paid: 0, longestUnpaidRun: 10, gapLimit: 11 },
    ]);
    expect(gaps[0]?.firstHandedOut).toBeInstanceOf(Date);
  }, 60_000);
});
