import "server-only";
import { and, desc, eq, lt } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import { type Page, type PageRequest, toPage } from "@/lib/api/pagination";
import type { Topup } from "@/lib/api/schemas/topups";
import { db } from "@/lib/db/client";
import { topups } from "@/lib/db/schema";
import { firstAhead, reuseUntilWrite } from "@/lib/db/until-write";
import { depositRails } from "@/lib/rails/setup";
import { now } from "@/lib/util/clock";
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
export function getTopup(accountId: number, ref: string): Promise<Topup> {
  return reuseUntilWrite(
    `topup:${accountId}:${ref}`,
    () => loadTopup(accountId, ref),
    staleAtDeadline,
    TOPUP_TABLES,
  );
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
export function listTopups(accountId: number, page: PageRequest): Promise<Page<Topup>> {
  const key = `topups:${accountId}:${page.beforeId ?? ""}:${page.limit}`;
  return reuseUntilWrite(
    key,
    async () => {
      const database = await db();
      const rows = await database
        .select()
        .from(topups)
        .where(and(eq(topups.accountId, accountId), page.beforeId ? lt(topups.id, page.beforeId) : undefined))
        .orderBy(desc(topups.id))
        .limit(page.limit + 1);
      const payments = await paymentsOf(rows.slice(0, page.limit).map((row) => row.id));
      return toPage(rows, page.limit, (row) =>
        presentTopup(row, payments.get(row.id) ?? [], isDemoTopup(row)),
      );
    },
    (list) => firstAhead(list.items.map((topup) => topup.expires_at)),
    TOPUP_TABLES,
  );
}
