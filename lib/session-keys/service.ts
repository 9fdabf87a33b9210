import "server-only";
import { and, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import {
  generateApiKey,
  generateLoginToken,
  normalizeLoginToken,
  sha256Hex,
} from "@/lib/accounts/credentials";
import { spendTotpCode } from "@/lib/accounts/totp";
import type { ErrorCode } from "@/lib/api/error-codes";
import { ApiError, badRequest, conflict, notFound } from "@/lib/api/errors";
import { now } from "@/lib/clock";
import { config } from "@/lib/config/env";
import { type Database, db } from "@/lib/db/client";
import { accounts, apiKeys } from "@/lib/db/schema";
import { firstAhead, reuseUntilWrite } from "@/lib/db/until-write";
import { consume, limiters } from "@/lib/rate-limit/limits";
import type { DashboardSession } from "@/lib/schemas/sessions";
import { SESSION_KEY_TTL_SECONDS } from "./ttl";

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
    .offset(config().maxSessionsPerAccount);
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
 * Exchanges a login token (plus a TOTP code when the account has it on) for a session key: an API key of
 * kind `session` that expires after SESSION_KEY_TTL_SECONDS, is not listed by GET /keys, and is revoked by
 * sign-out. Failed attempts are limited per client address.
 */
export async function signIn(input: { loginToken: string; totpCode: string | undefined; client: string }) {
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
    if (!input.totpCode) {
      throw failed("totp_required", "This account uses two-factor sign-in: send totp_code from your app.");
    }
    if (!(await spendTotpCode(account.id, input.totpCode, account.totpSecretEnc, input.client))) {
      await consume(limiters().loginFailures, input.client);
      throw failed("invalid_totp_code", "That code is not valid (or was already used).");
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
  return reuseUntilWrite(key, load, (sessions) => firstAhead(sessions.map((session) => session.expires_at)));
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
  return { id: row.id, revoked: true as const, revoked_at: row.revokedAt.toISOString() };
}

/**
 * Replaces the login token: the old one stops working at once and every session signed in with it is
 * revoked, in one transaction with the account row locked (a sign-in racing it either finishes first and is
 * revoked, or finds the old token gone). With TOTP on it takes a current code, so a stolen key or session
 * alone cannot take the dashboard over. A caller using a session key gets a new session to go on with.
 */
export async function rotateLoginToken(auth: AuthContext, totpCode: string | undefined, client: string) {
  const database = await db();
  const [account] = await database
    .select({ totpEnabled: accounts.totpEnabled, totpSecretEnc: accounts.totpSecretEnc })
    .from(accounts)
    .where(eq(accounts.id, auth.accountId));
  if (account?.totpEnabled && account.totpSecretEnc) {
    if (!totpCode)
      throw badRequest("totp_required", "Two-factor sign-in is on: send totp_code from your app.");
    if (!(await spendTotpCode(auth.accountId, totpCode, account.totpSecretEnc, client))) {
      throw badRequest(
        "invalid_totp_code",
        "That code is not valid (or was already used); try the next one.",
      );
    }
  }
  const token = generateLoginToken();
  return database.transaction(async (tx) => {
    await tx.update(accounts).set({ loginTokenHash: token.hash }).where(eq(accounts.id, auth.accountId));
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(liveSessions(auth.accountId))
      .returning({ id: apiKeys.id });
    const session = auth.keyKind === "session" ? await createSession(tx, auth.accountId) : undefined;
    return {
      login_token: token.token,
      sessions_revoked: revoked.length,
      ...(session ? { session } : {}),
    };
  });
}
