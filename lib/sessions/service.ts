import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import { generateApiKey, normalizeLoginToken, sha256Hex } from "@/lib/accounts/credentials";
import { spendTotpCode } from "@/lib/accounts/totp";
import { ApiError, conflict } from "@/lib/api/errors";
import { now } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { accounts, apiKeys } from "@/lib/db/schema";
import { consume, limiters } from "@/lib/rate-limit/limits";

/** A dashboard session key lives this long; the dashboard's cookie lives no longer. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

const failed = (code: string, message: string) => new ApiError(401, code, message);

/**
 * Exchanges a login token (plus a TOTP code when the account has it on) for a session key: an API key of
 * kind `session` that expires after SESSION_TTL_SECONDS, is not listed by GET /keys, and is revoked by
 * sign-out. Failed attempts are limited per client address.
 */
export async function signIn(input: { loginToken: string; totpCode: string | undefined; client: string }) {
  const normalized = normalizeLoginToken(input.loginToken);
  const database = await db();
  const [account] = normalized
    ? await database
        .select({ id: accounts.id, totpEnabled: accounts.totpEnabled, totpSecretEnc: accounts.totpSecretEnc })
        .from(accounts)
        .where(eq(accounts.loginTokenHash, sha256Hex(normalized)))
    : [];
  if (!account) {
    consume(limiters().loginFailures, input.client);
    throw failed("invalid_login", "That login token is not valid.");
  }
  if (account.totpEnabled && account.totpSecretEnc) {
    if (!input.totpCode) {
      throw failed("totp_required", "This account uses two-factor sign-in: send totp_code from your app.");
    }
    if (!(await spendTotpCode(account.id, input.totpCode, account.totpSecretEnc, input.client))) {
      consume(limiters().loginFailures, input.client);
      throw failed("invalid_totp_code", "That code is not valid (or was already used).");
    }
  }
  const key = generateApiKey();
  const expiresAt = new Date(now().getTime() + SESSION_TTL_SECONDS * 1000);
  const [row] = await database
    .insert(apiKeys)
    .values({
      accountId: account.id,
      keyHash: key.hash,
      prefix: key.prefix,
      name: "dashboard session",
      kind: "session",
      expiresAt,
    })
    .returning({ id: apiKeys.id });
  return { api_key: key.key, key_id: row?.id ?? 0, expires_at: expiresAt.toISOString() };
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
