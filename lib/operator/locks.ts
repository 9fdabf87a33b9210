import "server-only";
import { eq } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { accounts } from "@/lib/db/schema";

/**
 * Locks an account's row FOR UPDATE (the first lock every money-moving transaction takes, before any of its
 * servers), returning its balance; 404 when there is no such account.
 */
export async function lockAccount(tx: Tx, accountId: number): Promise<number> {
  const [account] = await tx
    .select({ balanceCents: accounts.balanceCents })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .for("update");
  if (!account) throw notFound(`No account with id ${accountId}.`);
  return account.balanceCents;
}
