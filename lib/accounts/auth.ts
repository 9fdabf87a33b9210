import "server-only";
import { and, eq, isNull, sql } from "drizzle-orm";
import { tooManyRequests, unauthorized } from "@/lib/api/errors";
import { type Database, db } from "@/lib/db/client";
import { accounts, apiKeys, servers } from "@/lib/db/schema";
import { limiters } from "@/lib/rate-limit/limits";
import { isWellFormedApiKey, sha256Hex } from "./credentials";

/** The authenticated caller: the key used, and a summary of its account read in the same statement. */
export type AuthContext = {
  keyId: number;
  accountId: number;
  account: { balanceCents: number; totpEnabled: boolean; createdAt: Date; serverCount: number };
};

/** last_used_at is refreshed at most this often per key, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * One prepared statement per request resolves key -> account summary: authentication is the hot path of
 * every call, and one round trip instead of two (built once, not per request) is what keeps it cheap.
 */
function prepareKeyLookup(database: Database) {
  return database
    .select({
      keyId: apiKeys.id,
      lastUsedAt: apiKeys.lastUsedAt,
      accountId: accounts.id,
      balanceCents: accounts.balanceCents,
      totpEnabled: accounts.totpEnabled,
      createdAt: accounts.createdAt,
      serverCount:
        sql<number>`(SELECT count(*) FROM ${servers} WHERE ${servers.accountId} = ${accounts.id} AND ${servers.status} <> 'terminated')`.mapWith(
          Number,
        ),
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
    .limit(1)
    .prepare("auth_key_lookup");
}

const lookups = new WeakMap<Database, ReturnType<typeof prepareKeyLookup>>();

async function lookupKey(key: string): Promise<AuthContext | undefined> {
  const database = await db();
  let lookup = lookups.get(database);
  if (!lookup) {
    lookup = prepareKeyLookup(database);
    lookups.set(database, lookup);
  }
  const [row] = await lookup.execute({ hash: sha256Hex(key) });
  if (!row) return undefined;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await database.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, row.keyId));
  }
  const { keyId, accountId, balanceCents, totpEnabled, createdAt, serverCount } = row;
  return { keyId, accountId, account: { balanceCents, totpEnabled, createdAt, serverCount } };
}

function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? "";
}

/**
 * Resolves the Bearer key of a request to its account. A missing, malformed, unknown or revoked key is a 401;
 * a client that has sent too many bad keys gets 429 before its next key is even looked at.
 */
export async function authenticateRequest(request: Request, client: string): Promise<AuthContext> {
  const presented = bearerToken(request);
  if (presented === undefined) throw unauthorized();

  const failures = limiters().authFailures;
  const state = failures.peek(client);
  if (!state.allowed) {
    throw tooManyRequests(
      state.resetSeconds,
      failures.name,
      failures.spec.limit,
      failures.spec.windowSeconds,
    );
  }
  const auth = isWellFormedApiKey(presented) ? await lookupKey(presented) : undefined;
  if (!auth) {
    failures.hit(client);
    throw unauthorized("The API key is missing, malformed, unknown or revoked.");
  }
  return auth;
}
