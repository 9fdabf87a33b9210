import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";
import { accounts, ledgerEntries } from "@/lib/db/schema";
import type { LedgerKind } from "@/lib/db/types";
import { now } from "@/lib/util/clock";
import { chargeKeyBudget } from "./spend-caps";

/**
 * Moves an account's balance by `amountCents` (negative = debit) and writes the ledger row, inside the
 * caller's transaction. The unique `reference` makes a repeated event a no-op (returns false) instead of
 * a second movement; the CHECK on the balance makes an overdraft fail instead of going negative.
 *
 * `apiKeyId` names the key whose request causes the movement (null: the account's own, such as a renewal by
 * the background or an operator's adjustment). A debit a key causes is refused here, whoever calls, when the
 * key lacks the spending scope or would pass its spend cap or that of a key above it (spend-caps.ts), counted
 * with the account row locked, so debits of one account are counted one after another.
 */
export async function postLedgerEntry(
  tx: Tx,
  entry: {
    accountId: number;
    amountCents: number;
    kind: LedgerKind;
    reference: string;
    apiKeyId: number | null;
  },
): Promise<{ posted: boolean; balanceAfterCents?: number }> {
  if (!Number.isSafeInteger(entry.amountCents) || entry.amountCents === 0) {
    throw new RangeError(`ledger amounts are non-zero whole cents, got ${entry.amountCents}`);
  }
  const at = now();
  if (entry.apiKeyId !== null && entry.amountCents < 0) {
    await chargeKeyBudget(tx, {
      accountId: entry.accountId,
      keyId: entry.apiKeyId,
      amountCents: -entry.amountCents,
      at,
    });
  }
  const [claimed] = await tx
    .insert(ledgerEntries)
    // Business time: a key's spend cap periods are read on the same clock (tests can move it).
    .values({ ...entry, balanceAfterCents: 0, createdAt: at })
    .onConflictDoNothing({ target: ledgerEntries.reference })
    .returning({ id: ledgerEntries.id });
  if (!claimed) return { posted: false };
  const [account] = await tx
    .update(accounts)
    .set({ balanceCents: sql`${accounts.balanceCents} + ${entry.amountCents}` })
    .where(eq(accounts.id, entry.accountId))
    .returning({ balanceCents: accounts.balanceCents });
  if (!account) throw new Error(`account ${entry.accountId} not found for ledger entry`);
  await tx
    .update(ledgerEntries)
    .set({ balanceAfterCents: account.balanceCents })
    .where(eq(ledgerEntries.id, claimed.id));
  return { posted: true, balanceAfterCents: account.balanceCents };
}
