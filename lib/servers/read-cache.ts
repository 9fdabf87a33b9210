import "server-only";
import { createVersionedCache } from "@/lib/db/versioned-cache";
import { processWide } from "@/lib/util/process-wide";

/**
 * Server reads, kept per account and reused while the account's server revision is unchanged.
 *
 * The revision (lib/db/server-revision.ts) is read in the same statement that authenticates the request, and
 * every committed change to the account's servers raises it. A value is loaded after its revision was read,
 * so it is never older than that revision; at worst it is newer, which is what a read at that moment could
 * have returned anyway.
 */
const MAX_ENTRIES = 5_000;

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
