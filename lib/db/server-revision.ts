import { type SQL, sql } from "drizzle-orm";

/**
 * An account's server revision: the sum of the `revision` column over its servers. A trigger raises a row's
 * revision on every update and a new row adds at least 1 (migration 0012), so every committed change raises
 * the sum: a different sum means different data, on every instance, whoever wrote it.
 *
 * As a subquery for a statement that selects from `accounts`: authentication reads it in the statement that
 * resolves the key, so the servers' read cache (lib/servers/read-cache.ts) knows for free whether what it
 * kept is current. Written out in full: drizzle leaves columns unqualified in a one-table select, and an
 * unqualified `id` inside the subquery would mean the server's.
 */
export function accountServersRevision(): SQL<number> {
  return sql<number>`(SELECT coalesce(sum(s.revision), 0) FROM servers AS s WHERE s.account_id = "accounts"."id")`.mapWith(
    Number,
  );
}
