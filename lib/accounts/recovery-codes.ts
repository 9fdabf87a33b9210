import "server-only";
import { and, count, eq, isNull, min } from "drizzle-orm";
import { type Database, db } from "@/lib/db/client";
import { recoveryCodes } from "@/lib/db/schema";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { matchRecoveryCode, normalizeRecoveryCode } from "./credentials";

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** Replaces the account's recovery codes with a new set (its stored hashes), inside the caller's transaction. */
export async function storeRecoveryCodes(
  tx: Transaction,
  accountId: number,
  hashes: string[],
): Promise<void> {
  await dropRecoveryCodes(tx, accountId);
  await tx.insert(recoveryCodes).values(hashes.map((codeHash) => ({ accountId, codeHash })));
}

/** Deletes the account's recovery codes (TOTP turned off: they belonged to that second factor). */
export async function dropRecoveryCodes(tx: Transaction, accountId: number): Promise<void> {
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.accountId, accountId));
}

/**
 * Checks a typed recovery code and spends it: it must match one of the account's unused codes, which a
 * conditional update then marks used, so a code works once even when sent twice at the same moment.
 *
 * Wrong codes are counted per account and client address only, never per account: a per-account limit would
 * be a lock that whoever holds the login token (or a key) could close on the owner from a few addresses, the
 * very lockout these codes exist to get out of. What bounds guessing instead is each code's 60 random bits
 * (docs/security.md). The attempt is taken before the check, so parallel guesses cannot slip past the limit,
 * and given back when the code was right.
 */
export async function spendRecoveryCode(accountId: number, typed: string, client: string): Promise<boolean> {
  const { recoveryFailures } = limiters();
  const pair = `${accountId} ${client}`;
  await consume(recoveryFailures, pair);
  const code = normalizeRecoveryCode(typed);
  if (code === undefined) return false;
  const database = await db();
  const unused = await database
    .select({ id: recoveryCodes.id, codeHash: recoveryCodes.codeHash })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.accountId, accountId), isNull(recoveryCodes.usedAt)));
  const index = await matchRecoveryCode(
    code,
    unused.map((row) => row.codeHash),
  );
  const match = unused[index];
  if (match === undefined) return false;
  const [spent] = await database
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(recoveryCodes.id, match.id), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  if (spent === undefined) return false;
  await recoveryFailures.refund(pair);
  return true;
}

/** How many of the account's recovery codes are left, and when the set was made (null: none). */
export async function recoveryCodeStatus(accountId: number) {
  const database = await db();
  const [row] = await database
    .select({ remaining: count(), createdAt: min(recoveryCodes.createdAt) })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.accountId, accountId), isNull(recoveryCodes.usedAt)));
  const remaining = row?.remaining ?? 0;
  return { remaining, created_at: remaining > 0 && row?.createdAt ? row.createdAt.toISOString() : null };
}
