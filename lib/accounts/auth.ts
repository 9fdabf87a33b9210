import "server-only";
import { and, eq, isNull, sql } from "drizzle-orm";
import { unauthorized } from "@/lib/api/errors";
import { type Database, databaseHandle, db } from "@/lib/db/client";
import { accounts, apiKeys, operatorSuspensions, servers } from "@/lib/db/schema";
import { accountServersRevision } from "@/lib/db/server-revision";
import { tablesWriteEpoch } from "@/lib/db/write-epoch";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { processWide } from "@/lib/util/process-wide";
import { isWellFormedApiKey, sha256Hex } from "./credentials";
import { checkKeyConditions, type KeyRights, keyRightsOf } from "./key-rights";

/** The authenticated caller: the key used, what it may do, and a summary of its account read in the same statement. */
export type AuthContext = {
  keyId: number;
  /** `api` for keys the user made, `session` for a dashboard sign-in's key. */
  keyKind: string;
  /** Its scopes and conditions (key-rights.ts). */
  rights: KeyRights;
  /** The key that made this one, if a key did. */
  parentKeyId: number | null;
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

/** last_used_at (and the address of that use) is refreshed at most this often per key, so reads do not turn into writes. */
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
      scopes: apiKeys.scopes,
      allowedNetworks: apiKeys.allowedNetworks,
      serverIds: apiKeys.serverIds,
      spendCapCents: apiKeys.spendCapCents,
      parentKeyId: apiKeys.parentKeyId,
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

/** A key as the lookup found it: the caller, and when its use was last recorded (ms; null: never). */
type FoundKey = { auth: AuthContext; lastUsedAt: number | null };

/**
 * On the embedded database, resolved keys (their networks parsed, their scopes in a set) are kept until the
 * next write to a table the lookup reads: exact, because every write to PGlite passes through this process.
 * PostgreSQL may have other writers (a second app instance), so there every request reads the database.
 */
type CachedAuth = FoundKey & { epoch: number };

const AUTH_CACHE_MAX_ENTRIES = 10_000;
const authCache = () => processWide("auth.cache", () => new Map<string, CachedAuth>());

async function lookupKey(key: string): Promise<FoundKey | undefined> {
  const hash = sha256Hex(key);
  const handle = await databaseHandle();
  const cacheable = handle.kind === "pglite";
  // Read before the lookup: a write that lands while the lookup runs leaves this entry already stale.
  const epoch = tablesWriteEpoch(AUTH_TABLES);
  const cached = cacheable ? authCache().get(hash) : undefined;
  if (cached && cached.epoch === epoch) return cached;
  let lookup = lookups.get(handle.db);
  if (!lookup) {
    lookup = prepareKeyLookup(handle.db);
    lookups.set(handle.db, lookup);
  }
  const [row] = await lookup.execute({ hash });
  if (!row) return undefined;
  const { keyId, keyKind, parentKeyId, accountId, balanceCents, totpEnabled, createdAt } = row;
  const suspension =
    row.suspensionReason !== null && row.suspendedSince !== null
      ? { reason: row.suspensionReason, since: row.suspendedSince }
      : null;
  const { serverCount, serversRevision } = row;
  const account = { balanceCents, totpEnabled, createdAt, serverCount, serversRevision, suspension };
  const rights = keyRightsOf({ ...row, kind: keyKind, expiresAt: row.keyExpiresAt });
  const found = {
    auth: { keyId, keyKind, rights, parentKeyId, accountId, account },
    lastUsedAt: row.lastUsedAt?.getTime() ?? null,
  };
  if (cacheable) {
    const cache = authCache();
    if (cache.size >= AUTH_CACHE_MAX_ENTRIES) cache.clear();
    cache.set(hash, { ...found, epoch });
  }
  return found;
}

/**
 * Records a use of the key and where it came from, at most once a minute: the write moves the write epoch,
 * so the next request reads the key afresh.
 */
async function recordUse(found: FoundKey, address: string): Promise<void> {
  if (found.lastUsedAt !== null && Date.now() - found.lastUsedAt <= LAST_USED_RESOLUTION_MS) return;
  const database = await db();
  await database
    .update(apiKeys)
    .set({ lastUsedAt: new Date(), lastUsedFrom: address })
    .where(eq(apiKeys.id, found.auth.keyId));
}

function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? "";
}

/** Who sent a request: the address rate limits count it by (`client`), and its own address. */
export type Caller = { client: string; address: string };

/**
 * Resolves the Bearer key of a request to its account. A missing, malformed, unknown or revoked key is a 401;
 * once a client address has sent too many bad keys, its bad keys get 429 instead until the window ends.
 * A good key always works, so strangers behind the same address (NAT, CGNAT) cannot lock its holder out;
 * malformed keys are refused without touching the database. A known key that has expired is `401
 * key_expired`, one used from outside its networks `403 address_not_allowed` (key-rights.ts); only a use
 * that passes is recorded as the key's last.
 */
export async function authenticateRequest(request: Request, caller: Caller): Promise<AuthContext> {
  const presented = bearerToken(request);
  if (presented === undefined) throw unauthorized();
  const found = isWellFormedApiKey(presented) ? await lookupKey(presented) : undefined;
  if (!found) {
    await consume(limiters().authFailures, caller.client); // 429 instead of 401 once past the limit
    throw unauthorized("The API key is missing, malformed, unknown or revoked.");
  }
  checkKeyConditions(found.auth.rights, caller.address);
  await recordUse(found, caller.address);
  return found.auth;
}
