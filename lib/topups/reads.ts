import "server-only";
import { and, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import { type Page, type PageRequest, toPage } from "@/lib/api/pagination";
import type { Topup } from "@/lib/api/schemas/topups";
import { databaseHandle, db, rowsOf } from "@/lib/db/client";
import { depositPayments, topups } from "@/lib/db/schema";
import { firstAhead, reuseUntilWrite } from "@/lib/db/until-write";
import { createVersionedCache } from "@/lib/db/versioned-cache";
import { depositRails } from "@/lib/rails/setup";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";
import { presentTopup, type TopupRow } from "./present";
import { isTopupRef } from "./ref";
import { isSettled, paymentsOf, settleTopups } from "./settlement";

/** A top-up paid to a simulated chain says `demo: true`. */
export const isDemoTopup = (row: TopupRow) => depositRails().watcherFor(row.network)?.demo ?? false;

/** The account's top-up by its reference; another account's (or a malformed reference) is 404. */
export async function findOwned(accountId: number, ref: string): Promise<TopupRow> {
  if (!isTopupRef(ref)) throw notFound(`No top-up with ref ${ref}.`);
  const database = await db();
  const [row] = await database
    .select()
    .from(topups)
    .where(and(eq(topups.ref, ref), eq(topups.accountId, accountId)));
  if (!row) throw notFound(`No top-up with ref ${ref}.`);
  return row;
}

/**
 * The top-up as it stands now. Reading settles it first when its payments or the clock call for it,
 * so a poll is what credits a confirmed payment, at most once whatever the number of concurrent polls.
 */
export async function getTopup(accountId: number, ref: string): Promise<Topup> {
  const key = `topup:${accountId}:${ref}`;
  const load = () => loadTopup(accountId, ref);
  if (await embedded()) return reuseUntilWrite(key, load, staleAtDeadline, TOPUP_TABLES);
  if (!isTopupRef(ref)) throw notFound(`No top-up with ref ${ref}.`);
  const owned = sql`${topups.ref} = ${ref} AND ${topups.accountId} = ${accountId}`;
  return reuseWhileUnchanged(key, await revisionsOf(owned, 1), load, staleAtDeadline);
}

const embedded = async () => (await databaseHandle()).kind === "pglite";

/**
 * On PostgreSQL another instance may change a top-up at any moment, so nothing is reused without a look:
 * the ids and revisions of the top-ups a read shows and of their payments (migration 0031 raises a row's
 * revision on every update), read in one small statement. A top-up read while they stood so is what a full
 * read would show now, until the clock passes its deadline. On PGlite every write passes through this
 * process and reads are reused until one (lib/db/until-write.ts), without the look.
 */
async function revisionsOf(where: SQL, limit: number): Promise<string> {
  const database = await db();
  const result = await database.execute(sql`
    SELECT ${topups.id} AS id, ${topups.revision} AS revision,
      (SELECT string_agg(p.id || ':' || p.revision, ',' ORDER BY p.id) FROM ${depositPayments} AS p
        WHERE p.topup_id = ${topups.id}) AS payments
    FROM ${topups} WHERE ${where} ORDER BY ${topups.id} DESC LIMIT ${limit}`);
  const rows = rowsOf<{ id: number; revision: number; payments: string | null }>(result);
  return rows.map((row) => `${row.id}:${row.revision}[${row.payments ?? ""}]`).join(";");
}

/** Top-up reads kept on PostgreSQL, each under the revisions it was read at (see revisionsOf). */
const checkedReads = () => processWide("topups.checked-reads", () => createVersionedCache(5_000));

async function reuseWhileUnchanged<T>(
  key: string,
  revisions: string,
  load: () => Promise<T>,
  staleAt: (value: T) => number,
): Promise<T> {
  // Loaded after the revisions were read: never older than them, at worst newer (then the next read reloads).
  const kept = checkedReads().get<T>(key, revisions, now().getTime());
  if (kept) return kept.value;
  const value = await load();
  checkedReads().set(key, revisions, value, staleAt(value));
  return value;
}

/** What a top-up as presented is read from: reused until one of these is written. */
const TOPUP_TABLES = ["topups", "deposit_payments"];

/** A pending top-up expires at its deadline without any write until the next pass: reuse stops there. */
const staleAtDeadline = (topup: Topup) => firstAhead([topup.expires_at]);

async function loadTopup(accountId: number, ref: string): Promise<Topup> {
  let row = await findOwned(accountId, ref);
  let payments = (await paymentsOf([row.id])).get(row.id) ?? [];
  if (!isSettled(row, payments, now())) {
    await settleTopups([row.id]);
    row = await findOwned(accountId, ref);
    payments = (await paymentsOf([row.id])).get(row.id) ?? [];
  }
  return presentTopup(row, payments, isDemoTopup(row));
}

/** One page of the account's top-ups, newest first. */
export async function listTopups(accountId: number, page: PageRequest): Promise<Page<Topup>> {
  const key = `topups:${accountId}:${page.beforeId ?? ""}:${page.limit}`;
  const onPage = and(
    eq(topups.accountId, accountId),
    page.beforeId ? lt(topups.id, page.beforeId) : undefined,
  );
  const load = async () => {
    const database = await db();
    const rows = await database
      .select()
      .from(topups)
      .where(onPage)
      .orderBy(desc(topups.id))
      .limit(page.limit + 1);
    const payments = await paymentsOf(rows.slice(0, page.limit).map((row) => row.id));
    return toPage(rows, page.limit, (row) => presentTopup(row, payments.get(row.id) ?? [], isDemoTopup(row)));
  };
  const staleAt = (list: Page<Topup>) => firstAhead(list.items.map((topup) => topup.expires_at));
  if (await embedded()) return reuseUntilWrite(key, load, staleAt, TOPUP_TABLES);
  return reuseWhileUnchanged(key, await revisionsOf(onPage ?? sql`true`, page.limit + 1), load, staleAt);
}
