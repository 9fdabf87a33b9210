import "server-only";
import { and, desc, eq, gt, inArray, isNull, ne } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import { accountSettings } from "@/lib/accounts/config";
import {
  generateApiKey,
  generateLoginToken,
  normalizeLoginToken,
  sha256Hex,
} from "@/lib/accounts/credentials";
import { liftTotpThrottle } from "@/lib/accounts/totp";
import {
  REFUSED,
  requireSecondFactor,
  type SecondFactor,
  secondFactorRefused,
  spendSecondFactor,
} from "@/lib/accounts/two-factor";
import type { ErrorCode } from "@/lib/api/error-codes";
import { ApiError, conflict, notFound } from "@/lib/api/errors";
import type { DashboardSession } from "@/lib/api/schemas/sessions";
import { type Database, db } from "@/lib/db/client";
import { accounts, apiKeys } from "@/lib/db/schema";
import { firstAhead, reuseUntilWrite } from "@/lib/db/until-write";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { now } from "@/lib/util/clock";
import { signal } from "@/lib/util/signals";
import { SESSION_KEY_TTL_SECONDS } from "./session-ttl";

/** A dashboard session key lives this long; the dashboard's cookie lives no longer. */

const failed = (code: ErrorCode, message: string) => new ApiError(401, code, message);

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** The account's sessions that still work: not revoked, not expired (on the service's clock). */
const liveSessions = (accountId: number) =>
  and(
    eq(apiKeys.accountId, accountId),
    eq(apiKeys.kind, "session"),
    isNull(apiKeys.revokedAt),
    gt(apiKeys.expiresAt, now()),
  );

/**
 * Mints a session key inside `tx` (whose account row is locked), then revokes the oldest live sessions past
 * MAX_SESSIONS_PER_ACCOUNT, so sign-ins cannot pile up keys without bound.
 */
async function createSession(tx: Transaction, accountId: number) {
  const key = generateApiKey();
  const expiresAt = new Date(now().getTime() + SESSION_KEY_TTL_SECONDS * 1000);
  const [row] = await tx
    .insert(apiKeys)
    .values({
      accountId,
      keyHash: key.hash,
      prefix: key.prefix,
      name: "dashboard session",
      kind: "session",
      expiresAt,
    })
    .returning({ id: apiKeys.id });
  if (!row) throw new Error("session insert returned no row");
  const beyondCap = await tx
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(liveSessions(accountId))
    .orderBy(desc(apiKeys.id))
    .offset(accountSettings().maxSessionsPerAccount);
  if (beyondCap.length > 0) {
    await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(
        inArray(
          apiKeys.id,
          beyondCap.map((r) => r.id),
        ),
      );
  }
  return { api_key: key.key, key_id: row.id, expires_at: expiresAt.toISOString() };
}

/**
 * Exchanges a login token (plus a TOTP code or a recovery code when the account has TOTP on) for a session
 * key: an API key of kind `session` that expires after SESSION_KEY_TTL_SECONDS, is not listed by GET /keys,
 * and is revoked by sign-out. Failed attempts are limited per client address.
 */
export async function signIn(input: { loginToken: string; factor: SecondFactor; client: string }) {
  const normalized = normalizeLoginToken(input.loginToken);
  const tokenHash = normalized ? sha256Hex(normalized) : undefined;
  const database = await db();
  const [account] = tokenHash
    ? await database
        .select({ id: accounts.id, totpEnabled: accounts.totpEnabled, totpSecretEnc: accounts.totpSecretEnc })
        .from(accounts)
        .where(eq(accounts.loginTokenHash, tokenHash))
    : [];
  const invalidLogin = async () => {
    await consume(limiters().loginFailures, input.client);
    return failed("invalid_login", "That login token is not valid.");
  };
  if (!account || !tokenHash) throw await invalidLogin();
  if (account.totpEnabled && account.totpSecretEnc) {
    const secret = { id: account.id, totpSecretEnc: account.totpSecretEnc };
    const refusal = await spendSecondFactor(secret, input.factor, input.client);
    if (refusal) {
      if (refusal !== REFUSED.missing) await consume(limiters().loginFailures, input.client);
      throw secondFactorRefused(refusal, 401);
    }
  }
  const session = await database.transaction(async (tx) => {
    // Locked with the token still matching: a rotation that committed meanwhile leaves no session behind.
    const [locked] = await tx
      .select({ id: accounts.id })
      .from(accounts)
      .where(and(eq(accounts.id, account.id), eq(accounts.loginTokenHash, tokenHash)))
      .for("update");
    return locked ? await createSession(tx, account.id) : undefined;
  });
  if (!session) throw await invalidLogin();
  // Sessions beyond the cap were revoked with it.
  signal("credentials-revoked");
  return session;
}

/** Sign-out: revokes the session key the request was made with, so a copied cookie stops working. */
export async function signOut(auth: AuthContext) {
  if (auth.keyKind !== "session") {
    throw conflict("not_a_session", "This is an API key, not a session; revoke it with DELETE /keys/{id}.");
  }
  const database = await db();
  await database
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, auth.keyId), isNull(apiKeys.revokedAt)));
  signal("credentials-revoked");
  return { signed_out: true };
}

/** The account's live dashboard sessions, newest first, the caller's own marked. */
export function listSessions(auth: AuthContext): Promise<DashboardSession[]> {
  const load = async () => {
    const database = await db();
    const rows = await database
      .select({
        id: apiKeys.id,
        createdAt: apiKeys.createdAt,
        lastUsedAt: apiKeys.lastUsedAt,
        expiresAt: apiKeys.expiresAt,
      })
      .from(apiKeys)
      .where(liveSessions(auth.accountId))
      .orderBy(desc(apiKeys.id));
    return rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
      expires_at: (row.expiresAt ?? row.createdAt).toISOString(),
      current: auth.keyKind === "session" && row.id === auth.keyId,
    }));
  };
  // The list drops a session at its expiry, which is no write: the reused list goes stale then.
  const key = `sessions:${auth.accountId}:${auth.keyKind === "session" ? auth.keyId : "api"}`;
  return reuseUntilWrite(key, load, (sessions) => firstAhead(sessions.map((session) => session.expires_at)), [
    "api_keys",
  ]);
}

/** Revokes one of the account's live sessions at once; another account's, an API key, or a dead one is 404. */
export async function revokeSession(accountId: number, sessionId: number) {
  const database = await db();
  const [row] = await database
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, sessionId), liveSessions(accountId)))
    .returning({ id: apiKeys.id, revokedAt: apiKeys.revokedAt });
  if (!row?.revokedAt) throw notFound(`No live session with id ${sessionId}.`);
  signal("credentials-revoked");
  return { id: row.id, revoked: true as const, revoked_at: row.revokedAt.toISOString() };
}

/**
 * Replaces the login token: the old one stops working at once and every session signed in with it is
 * revoked, in one transaction with the account row locked (a sign-in racing it either finishes first and is
 * revoked, or finds the old token gone). With TOTP on it takes a current code or a recovery code, so a stolen
 * key or session alone cannot take the dashboard over, and an owner whose codes are throttled still can.
 * A caller using a session key gets a new session to go on with.
 *
 * `revokeApiKeys` also revokes the account's API keys, for a token that may have been used to sign in and
 * mint keys. It is off unless asked: keys run unattended scripts, and a leaked token is not a leaked key.
 * The key making the request is spared (it has just shown it is the owner's); a session is not an API key,
 * so from the dashboard every API key goes. A key with fewer rights than the account's own is refused: the
 * token it would get back opens the dashboard, where every right is.
 */
export async function rotateLoginToken(
  auth: AuthContext,
  input: { factor: SecondFactor; revokeApiKeys: boolean },
  client: string,
) {
  // The new token signs into the dashboard with every right and no condition: only such a caller may get one.
  if (!auth.rights.unrestricted) {
    throw new ApiError(
      403,
      "beyond_key_rights",
      "Only a dashboard session or a key with every scope and no conditions can replace the login token: the " +
        "new token signs into the dashboard with every right.",
    );
  }
  const totpOn = await requireSecondFactor(auth.accountId, input.factor, client);
  const token = generateLoginToken();
  const database = await db();
  const rotated = await database.transaction(async (tx) => {
    await tx.update(accounts).set({ loginTokenHash: token.hash }).where(eq(accounts.id, auth.accountId));
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(liveSessions(auth.accountId))
      .returning({ id: apiKeys.id });
    const keysRevoked = input.revokeApiKeys
      ? await tx
          .update(apiKeys)
          .set({ revokedAt: new Date() })
          .where(
            and(
              eq(apiKeys.accountId, auth.accountId),
              eq(apiKeys.kind, "api"),
              isNull(apiKeys.revokedAt),
              ne(apiKeys.id, auth.keyId),
            ),
          )
          .returning({ id: apiKeys.id })
      : [];
    const session = auth.keyKind === "session" ? await createSession(tx, auth.accountId) : undefined;
    return {
      login_token: token.token,
      sessions_revoked: revoked.length,
      api_keys_revoked: keysRevoked.length,
      ...(session ? { session } : {}),
    };
  });
  // The wrong codes that throttled TOTP for everyone came through the token now gone (or a key the owner
  // can now revoke): the owner's app works again at once.
  if (totpOn) await liftTotpThrottle(auth.accountId);
  signal("credentials-revoked");
  return rotated;
}
