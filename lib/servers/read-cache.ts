import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { createVersionedCache } from "@/lib/db/versioned-cache";
import { processWide } from "@/lib/util/process-wide";

/**
 * Server reads, kept per account and reused while the account's server revision is unchanged.
 *
 * The revision is the sum of the `revision` column over the account's servers, read in the same statement
 * that authenticates the request. A trigger raises a row's revision on every update and a new row adds at
 * least 1, so every committed change raises the sum: a different sum means different data, on every
 * instance, whoever wrote it. A value is loaded after its revision was read, so it is never older than
 * that revision; at worst it is newer, which is what a read at that moment could have returned anyway.
 */
const MAX_ENTRIES = 5_000;

/**
 * The account's server revision, as a subquery for a statement that selects from `accounts` (the statement
 * that authenticates the request). Written out in full: drizzle leaves columns unqualified in a one-table
 * select, and an unqualified `id` inside the subquery would mean the server's.
 */
export function accountServersRevision(): SQL<number> {
  return sql<number>`(SELECT coalesce(sum(s.revision), 0) FROM servers AS s WHERE s.account_id = "accounts"."id")`.mapWith(
    Number,
  );
}

const entries = () => processWide("servers.read-cache", () => createVersionedCache(MAX_ENTRIES));

export async function cachedServerRead<T>(
  accountId: number,
  revision: number,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  const cache = entries();
  const name = `${accountId}:${key}`;
  const hit = cache.get<T>(name, revision);
  if (hit) return hit.value;
  const value = await load();
  cache.set(name, revision, value);
  return value;
}
