import "server-only";
import { createHash } from "node:crypto";
import { and, asc, eq, lt, or, sql } from "drizzle-orm";
import { ApiError, badRequest } from "@/lib/api/errors";
import { type Database, db, type Tx } from "@/lib/db/client";
import { accounts, idempotencyKeys } from "@/lib/db/schema";

/** Stored outcomes are honoured for a day (as Stripe does); an older key starts afresh. */
const RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * A claim older than this belongs to a request that died mid-way (its instance was killed); a retry may take
 * it over. Longer than the slowest work under it can run (POST /topups: an x402 settlement waits at most 30 s
 * for its receipt plus RPC timeouts, and keeps its own claim on the authorization), short enough that a
 * client retrying after a crash is served within two minutes.
 */
const STALE_CLAIM_MS = 90 * 1000;

export type StoredResponse = {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Secrets for the first answer only (a generated password): added to the body, never stored. */
  unstored?: Record<string, unknown>;
};

/** The row of one key: keys are per account and per operation. */
const keyRow = (accountId: number, operation: string, key: string) =>
  and(
    eq(idempotencyKeys.accountId, accountId),
    eq(idempotencyKeys.scope, operation),
    eq(idempotencyKeys.key, key),
  );

/** Outcomes past the retention period, which no longer bind their key. */
const expired = () => lt(idempotencyKeys.createdAt, new Date(Date.now() - RETENTION_MS));

const withUnstored = ({ unstored, ...response }: StoredResponse): StoredResponse =>
  unstored ? { ...response, body: { ...(response.body as object), ...unstored } } : response;

/** Validates the header: 1 to 255 printable ASCII characters, or absent. */
export function readIdempotencyKey(headers: Headers): string | undefined {
  const key = headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!/^[\x21-\x7e][\x20-\x7e]{0,254}$/.test(key) || key.trim() !== key) {
    throw badRequest(
      "invalid_idempotency_key",
      "Idempotency-Key must be 1 to 255 printable ASCII characters without leading or trailing spaces.",
    );
  }
  return key;
}

/** A fingerprint of what the request asks for, so the same key with a different request is refused. */
export function fingerprint(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
}

type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

const keyReused = () =>
  new ApiError(
    422,
    "idempotency_key_reused",
    "This Idempotency-Key was used with a different request; use a new key for a new request.",
  );

const keyInUse = () =>
  new ApiError(
    409,
    "idempotency_key_in_use",
    "A request with this Idempotency-Key is still being processed; retry shortly.",
    {},
    { "Retry-After": "1" },
  );

/** The answer for a key already claimed: its stored response, or 422/409. */
function answerForClaimed(existing: IdempotencyRow | undefined, requestFingerprint: string): StoredResponse {
  if (!existing) throw keyInUse();
  if (existing.fingerprint !== requestFingerprint) throw keyReused();
  if (existing.state !== "completed" || existing.statusCode === null || existing.responseBody === null) {
    throw keyInUse();
  }
  const stored = JSON.parse(existing.responseBody) as { body: unknown; headers?: Record<string, string> };
  return {
    status: existing.statusCode,
    body: stored.body,
    headers: { ...stored.headers, "Idempotent-Replayed": "true" },
  };
}

const storedOutcome = (response: StoredResponse) => ({
  state: "completed" as const,
  statusCode: response.status,
  responseBody: JSON.stringify({ body: response.body, headers: response.headers }),
});

/**
 * Runs `execute` at most once per (account, scope, key): the first request claims the key, a retry with
 * the same request gets the stored response (with `Idempotent-Replayed: true`), the same key with another
 * request gets 422, and a retry while the first is still running gets 409. Failures are not stored, so a
 * request that failed (4xx or 5xx) can be retried with the same key.
 */
export async function withIdempotency(
  scope: { accountId: number; operation: string; key: string | undefined; fingerprint: string },
  execute: () => Promise<StoredResponse>,
  database?: Database,
): Promise<StoredResponse> {
  const { accountId, operation, key } = scope;
  if (key === undefined) return execute();
  database ??= await db();
  const where = keyRow(accountId, operation, key);
  // Expired outcomes and abandoned claims make room for a fresh claim (one statement for both).
  await database
    .delete(idempotencyKeys)
    .where(
      and(
        where,
        or(
          expired(),
          and(
            eq(idempotencyKeys.state, "in_progress"),
            lt(idempotencyKeys.createdAt, new Date(Date.now() - STALE_CLAIM_MS)),
          ),
        ),
      ),
    );
  const [claimed] = await database
    .insert(idempotencyKeys)
    .values({ accountId, scope: operation, key, fingerprint: scope.fingerprint, state: "in_progress" })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (!claimed) {
    const [existing] = await database.select().from(idempotencyKeys).where(where);
    return answerForClaimed(existing, scope.fingerprint);
  }
  const release = () =>
    releaseClaim(() =>
      database.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.state, "in_progress"))),
    );
  let response: StoredResponse;
  try {
    response = await execute();
  } catch (error) {
    await release();
    throw error;
  }
  if (response.status >= 200 && response.status < 300) {
    await database.update(idempotencyKeys).set(storedOutcome(response)).where(where);
  } else {
    await release();
  }
  return response;
}

/** How long a claim that could not be released (the database was away) keeps being retried. */
const RELEASE_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000, 60_000];

/**
 * Gives a failed request's claim back, so the client's retry with the same key is not refused. When the
 * database is unreachable (often the very reason the request failed), the release is retried in the
 * background for about two minutes instead of leaving the key held until the claim goes stale.
 */
async function releaseClaim(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch {
    const retry = (attempt: number) => {
      const delay = RELEASE_RETRY_MS[attempt];
      if (delay === undefined) return;
      setTimeout(() => {
        remove().catch(() => retry(attempt + 1));
      }, delay).unref();
    };
    retry(0);
  }
}

/**
 * Like withIdempotency, for money-moving work that is all in the database: the claim, the work and the
 * stored response commit together or not at all, so a crash can never leave the work done without its
 * stored answer (and a retry doing it twice). The account row is locked first, before anything that
 * references it (the claim's foreign key would take a key-share lock, and two such transactions upgrading
 * to FOR UPDATE deadlock); so one account's money-moving requests run one at a time, and a retry with the
 * same key waits, then replays the stored response.
 */
export async function withIdempotentTransaction(
  scope: { accountId: number; operation: string; key: string | undefined; fingerprint: string },
  execute: (tx: Tx) => Promise<StoredResponse>,
  database?: Database,
): Promise<StoredResponse> {
  const { accountId, operation, key } = scope;
  database ??= await db();
  const response = await database.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    if (key === undefined) return execute(tx);
    const where = keyRow(accountId, operation, key);
    await tx.delete(idempotencyKeys).where(and(where, expired()));
    const [claimed] = await tx
      .insert(idempotencyKeys)
      .values({ accountId, scope: operation, key, fingerprint: scope.fingerprint, state: "in_progress" })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (!claimed) {
      const [existing] = await tx.select().from(idempotencyKeys).where(where);
      return answerForClaimed(existing, scope.fingerprint);
    }
    const response = await execute(tx);
    await tx.update(idempotencyKeys).set(storedOutcome(response)).where(where);
    return response;
  });
  return withUnstored(response);
}

/**
 * Deletes up to `batch` keys past the retention period, oldest first (a background pass; a key is also
 * replaced when it is used again). Returns how many went.
 */
export async function pruneExpiredIdempotencyKeys(database: Database, batch: number): Promise<number> {
  const k = idempotencyKeys;
  const oldest = database
    .select({ accountId: k.accountId, scope: k.scope, key: k.key })
    .from(k)
    .where(expired());
  const deleted = await database
    .delete(k)
    .where(sql`(${k.accountId}, ${k.scope}, ${k.key}) IN (${oldest.orderBy(asc(k.createdAt)).limit(batch)})`)
    .returning({ key: k.key });
  return deleted.length;
}
