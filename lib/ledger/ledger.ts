import "server-only";
import { eq, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";
import { accounts, ledgerEntries } from "@/lib/db/schema";
import type { LedgerKind } from "@/lib/db/types";

/**
 * Moves an account's balance by `amountCents` (negative = debit) and writes the ledger row, inside the
 * caller's transaction. The unique `reference` makes a repeated event a no-op (returns false) instead of
 * a second movement; the CHECK on the balance makes an overdraft fail instead of going negative.
 */
export async function postLedgerEntry(
  tx: Tx,
  entry: { accountId: number; amountCents: number; kind: LedgerKind; reference: string },
): Promise<{ posted: boolean; balanceAfterCents?: number }> {
  if (!Number.isSafeInteger(entry.amountCents) || entry.amountCents === 0) {
    throw new RangeError(`ledger amounts are non-zero whole cents, got ${entry.amountCents}`);
  }
  const [claimed] = await tx
    .insert(ledgerEntries)
    .values({ ...entry, balanceAfterCents: 0 })
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
