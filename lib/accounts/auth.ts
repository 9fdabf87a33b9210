import "server-only";
import { and, eq, isNull, sql } from "drizzle-orm";
import { unauthorized } from "@/lib/api/errors";
import { type Database, databaseHandle } from "@/lib/db/client";
import { accounts, apiKeys, operatorSuspensions, servers } from "@/lib/db/schema";
import { accountServersRevision } from "@/lib/db/server-revision";
import { tablesWriteEpoch } from "@/lib/db/write-epoch";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";
import { isWellFormedApiKey, sha256Hex } from "./credentials";

/** The authenticated caller: the key used, and a summary of its account read in the same statement. */
export type AuthContext = {
  keyId: number;
  /** `api` for keys the user made, `session` for a dashboard sign-in's key. */
  keyKind: string;
  accountId: number;
  account: {
    balanceCents: number;
    totpEnabled: boolean;
    createdAt: Date;
    serverCount: number;
    /** Changes with every committed change to the account's servers (lib/db/server-revision.ts). */
    serversRevision: number;
    /** The operator's open suspension of the whole account, if any (lib/servers/holds.ts). */
    suspension: { reason: string; since: Date } | null;
  };
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
      keyKind: apiKeys.kind,
      keyExpiresAt: apiKeys.expiresAt,
      lastUsedAt: apiKeys.lastUsedAt,
      accountId: accounts.id,
      balanceCents: accounts.balanceCents,
      totpEnabled: accounts.totpEnabled,
      createdAt: accounts.createdAt,
      serverCount:
        sql<number>`(SELECT count(*) FROM ${servers} WHERE ${servers.accountId} = ${accounts.id} AND ${servers.status} <> 'terminated')`.mapWith(
          Number,
        ),
      serversRevision: accountServersRevision(),
      suspensionReason: sql<string | null>`(SELECT ${operatorSuspensions.reason} FROM ${operatorSuspensions}
        WHERE ${operatorSuspensions.accountId} = ${accounts.id} AND ${operatorSuspensions.serverId} IS NULL
          AND ${operatorSuspensions.liftedAt} IS NULL)`,
      suspendedSince: sql<Date | null>`(SELECT ${operatorSuspensions.createdAt} FROM ${operatorSuspensions}
        WHERE ${operatorSuspensions.accountId} = ${accounts.id} AND ${operatorSuspensions.serverId} IS NULL
          AND ${operatorSuspensions.liftedAt} IS NULL)`.mapWith(operatorSuspensions.createdAt),
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
    .limit(1)
    .prepare("auth_key_lookup");
}

/** What the lookup reads: a resolved key is reused until one of these tables is written. */
const AUTH_TABLES = ["api_keys", "accounts", "servers", "operator_suspensions"];

const lookups = new WeakMap<Database, ReturnType<typeof prepareKeyLookup>>();

/**
 * On the embedded database, resolved keys are kept until the next write to a table the lookup reads:
 * exact, because every write to PGlite passes through this process. PostgreSQL may have other writers
 * (a second app instance), so there every request reads the database.
 */
type CachedAuth = { auth: AuthContext; epoch: number; lastUsedAt: number; expiresAt: number | undefined };

/** Session keys stop working at their expiry, on the service's clock (which tests can move). */
const expired = (expiresAt: number | undefined) => expiresAt !== undefined && expiresAt <= now().getTime();
const AUTH_CACHE_MAX_ENTRIES = 10_000;
const authCache = () => processWide("auth.cache", () => new Map<string, CachedAuth>());

async function lookupKey(key: string): Promise<AuthContext | undefined> {
  const hash = sha256Hex(key);
  const handle = await databaseHandle();
  const cacheable = handle.kind === "pglite";
  // Read before the lookup: a write that lands while the lookup runs leaves this entry already stale.
  const epoch = tablesWriteEpoch(AUTH_TABLES);
  const cached = cacheable ? authCache().get(hash) : undefined;
  if (cached && cached.epoch === epoch && Date.now() - cached.lastUsedAt <= LAST_USED_RESOLUTION_MS) {
    return expired(cached.expiresAt) ? undefined : cached.auth;
  }
  let lookup = lookups.get(handle.db);
  if (!lookup) {
    lookup = prepareKeyLookup(handle.db);
    lookups.set(handle.db, lookup);
  }
  const [row] = await lookup.execute({ hash });
  if (!row) return undefined;
  const expiresAt = row.keyExpiresAt?.getTime();
  if (expired(expiresAt)) return undefined;
  const { keyId, keyKind, accountId, balanceCents, totpEnabled, createdAt, serverCount, serversRevision } =
    row;
  const suspension =
    row.suspensionReason !== null && row.suspendedSince !== null
      ? { reason: row.suspensionReason, since: row.suspendedSince }
      : null;
  const account = { balanceCents, totpEnabled, createdAt, serverCount, serversRevision, suspension };
  const auth = { keyId, keyKind, accountId, account };
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await handle.db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, row.keyId));
    return auth; // that update was a write: the value read before it is not cached
  }
  if (cacheable) {
    const cache = authCache();
    if (cache.size >= AUTH_CACHE_MAX_ENTRIES) cache.clear();
    cache.set(hash, { auth, epoch, lastUsedAt: row.lastUsedAt.getTime(), expiresAt });
  }
  return auth;
}

function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? "";
}

/**
 * Resolves the Bearer key of a request to its account. A missing, malformed, unknown or revoked key is a 401;
 * once a client address has sent too many bad keys, its bad keys get 429 instead until the window ends.
 * A good key always works, so strangers behind the same address (NAT, CGNAT) cannot lock its holder out;
 * malformed keys are refused without touching the database.
 */
export async function authenticateRequest(request: Request, client: string): Promise<AuthContext> {
  const presented = bearerToken(request);
  if (presented === undefined) throw unauthorized();
  const auth = isWellFormedApiKey(presented) ? await lookupKey(presented) : undefined;
  if (auth) return auth;
  await consume(limiters().authFailures, client); // 429 instead of 401 once this address is past the limit
  throw unauthorized("The API key is missing, malformed, unknown or revoked.");
}
