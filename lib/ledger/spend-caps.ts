import "server-only";
import { eq, type SQL, sql } from "drizzle-orm";
import { type Database, rowsOf, type Tx } from "@/lib/db/client";
import { accounts } from "@/lib/db/schema";
import { type ApiKeyScope, SPEND_SCOPE, type SpendCapPeriod } from "@/lib/db/types";

/**
 * Spend caps on API keys, kept where money moves: a debit a key causes is checked against the cap of that key
 * and of every key above it (the key that made it, and so on), in the transaction that writes the debit and
 * after the account row is locked, so concurrent debits are counted one after another and cannot overshoot.
 * What a key has spent is read from the ledger itself: the debits of the key and of the keys it made (each
 * ledger row names the key whose request caused it), since the start of the cap's period.
 */

/** One period of a cap: when it began (null: the key's whole life) and when the next begins (null: never). */
export type CapWindow = { start: Date | null; resetsAt: Date | null };

const DAY_MS = 86_400_000;

/** The period of `period` that holds `at`, in UTC: days at 00:00, weeks on Mondays, months on the first. */
export function capWindow(period: SpendCapPeriod, at: Date): CapWindow {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  switch (period) {
    case "day":
      return { start: new Date(day), resetsAt: new Date(day + DAY_MS) };
    case "week": {
      const monday = day - ((at.getUTCDay() + 6) % 7) * DAY_MS;
      return { start: new Date(monday), resetsAt: new Date(monday + 7 * DAY_MS) };
    }
    case "month":
      return {
        start: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
        resetsAt: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
      };
    case "total":
      return { start: null, resetsAt: null };
  }
}

/** A cap on the way from a key up to the key that made none: what it allows and what is spent of it now. */
export type CapStatus = CapWindow & {
  keyId: number;
  capCents: number;
  period: SpendCapPeriod;
  spentCents: number;
  /** 0 for the key itself, 1 for the key that made it, and so on. */
  depth: number;
};

/** A debit refused because a key on the way up would pass its cap. */
export class SpendCapExceeded extends Error {
  constructor(
    readonly cap: CapStatus,
    readonly amountCents: number,
  ) {
    super(`spend cap of key ${cap.keyId} exceeded`);
    this.name = "SpendCapExceeded";
  }
}

/** A debit refused because the key that caused it does not hold the spending scope. */
export class KeyCannotSpend extends Error {
  constructor(readonly scopes: readonly ApiKeyScope[]) {
    super("the key does not hold the spending scope");
    this.name = "KeyCannotSpend";
  }
}

type ChainRow = {
  id: number;
  scopes: ApiKeyScope[] | null;
  spend_cap_cents: string | number | null;
  spend_cap_period: SpendCapPeriod | null;
  depth: number;
};

/** The key and the keys above it, nearest first, as far as they belong to `accountId`. */
async function keyChain(database: Database | Tx, accountId: number, keyId: number): Promise<ChainRow[]> {
  const result = await database.execute(sql`
    WITH RECURSIVE chain AS (
      SELECT id, parent_key_id, scopes, spend_cap_cents, spend_cap_period, 0 AS depth
      FROM api_keys WHERE id = ${keyId} AND account_id = ${accountId}
      UNION ALL
      SELECT k.id, k.parent_key_id, k.scopes, k.spend_cap_cents, k.spend_cap_period, c.depth + 1
      FROM api_keys k JOIN chain c ON k.id = c.parent_key_id
    )
    SELECT id, scopes, spend_cap_cents, spend_cap_period, depth FROM chain ORDER BY depth`);
  return rowsOf<ChainRow>(result);
}

/** What `keyId` and the keys it made (at any depth) have debited since `start` (null: ever), in cents. */
async function spentSince(database: Database | Tx, keyId: number, start: Date | null): Promise<number> {
  const since: SQL = start ? sql`AND l.created_at >= ${start}` : sql``;
  const result = await database.execute(sql`
    WITH RECURSIVE made AS (
      SELECT ${keyId}::integer AS id
      UNION ALL
      SELECT k.id FROM api_keys k JOIN made m ON k.parent_key_id = m.id
    )
    SELECT COALESCE(SUM(-l.amount_cents), 0) AS spent
    FROM ledger_entries l
    WHERE l.api_key_id IN (SELECT id FROM made) AND l.amount_cents < 0 ${since}`);
  return Number(rowsOf<{ spent: string | number }>(result)[0]?.spent ?? 0);
}

/** Where the cap of key `keyId` stands at `at`: its period and what it and the keys it made spent in it. */
export async function capStatus(
  database: Database | Tx,
  keyId: number,
  cap: { capCents: number; period: SpendCapPeriod },
  at: Date,
  depth = 0,
): Promise<CapStatus> {
  const window = capWindow(cap.period, at);
  const spentCents = await spentSince(database, keyId, window.start);
  return { keyId, ...cap, spentCents, depth, ...window };
}

/** A chain member's cap, when it has one. */
const capOf = (member: ChainRow) =>
  member.spend_cap_cents === null || member.spend_cap_period === null
    ? undefined
    : { capCents: Number(member.spend_cap_cents), period: member.spend_cap_period };

/**
 * Every cap that bounds what `keyId` may spend at `at`, nearest first: its own and those of the keys above
 * it. Empty when none of them has a cap. Also says whether the key itself may spend at all.
 */
export async function keyBudget(
  database: Database | Tx,
  accountId: number,
  keyId: number,
  at: Date,
): Promise<{ found: boolean; canSpend: boolean; scopes: ApiKeyScope[] | null; caps: CapStatus[] }> {
  const chain = await keyChain(database, accountId, keyId);
  const key = chain[0];
  if (!key) return { found: false, canSpend: false, scopes: null, caps: [] };
  const caps: CapStatus[] = [];
  for (const member of chain) {
    const cap = capOf(member);
    if (cap) caps.push(await capStatus(database, member.id, cap, at, Number(member.depth)));
  }
  return { found: true, canSpend: mayDebit(key), scopes: key.scopes, caps };
}

const mayDebit = (key: ChainRow) => key.scopes === null || key.scopes.includes(SPEND_SCOPE);

/** What is left under the tightest cap of `caps`, in cents (never below zero); null when there is none. */
export const availableCents = (caps: readonly CapStatus[]): number | null =>
  caps.length === 0 ? null : Math.max(0, Math.min(...caps.map((cap) => cap.capCents - cap.spentCents)));

/**
 * Refuses a debit of `amountCents` caused by `keyId` that its scopes or a cap on the way up do not allow, in
 * the debit's transaction. When a cap applies, the account row is locked before anything spent is read, so
 * debits of one account are counted one after another (every debit path locks the account first anyway);
 * a key with no cap above it costs one statement.
 */
export async function chargeKeyBudget(
  tx: Tx,
  entry: { accountId: number; keyId: number; amountCents: number; at: Date },
): Promise<void> {
  const chain = await keyChain(tx, entry.accountId, entry.keyId);
  const key = chain[0];
  if (!key) throw new Error(`api key ${entry.keyId} of account ${entry.accountId} not found`);
  if (!mayDebit(key)) throw new KeyCannotSpend(key.scopes ?? []);
  const capped = chain.filter((member) => capOf(member) !== undefined);
  if (capped.length === 0) return;
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, entry.accountId)).for("update");
  for (const member of capped) {
    const cap = capOf(member);
    if (!cap) continue;
    const status = await capStatus(tx, member.id, cap, entry.at, Number(member.depth));
    if (status.spentCents + entry.amountCents > status.capCents) {
      throw new SpendCapExceeded(status, entry.amountCents);
    }
  }
}
