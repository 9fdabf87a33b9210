import "server-only";
import { eq } from "drizzle-orm";
import type { ErrorCode } from "@/lib/api/error-codes";
import { ApiError, badRequest, conflict } from "@/lib/api/errors";
import { db } from "@/lib/db/client";
import { accounts } from "@/lib/db/schema";
import { generateRecoveryCodes } from "./credentials";
import { dropRecoveryCodes, spendRecoveryCode, storeRecoveryCodes } from "./recovery-codes";
import { spendTotpCode, totpState } from "./totp";

/** What a caller may prove the second factor with: a current TOTP code, or one of the recovery codes. */
export type SecondFactor = { totpCode?: string | undefined; recoveryCode?: string | undefined };

/** Why a second factor did not pass. */
export const REFUSED = {
  missing: {
    code: "totp_required",
    message: "Two-factor sign-in is on: send totp_code from your app, or one of your recovery codes.",
  },
  wrongTotpCode: {
    code: "invalid_totp_code",
    message: "That code is not valid (or was already used); try the next one.",
  },
  wrongRecoveryCode: {
    code: "invalid_recovery_code",
    message: "That recovery code is not valid, or was already used.",
  },
} as const satisfies Record<string, { code: ErrorCode; message: string }>;

type Refusal = (typeof REFUSED)[keyof typeof REFUSED];

/** The refusal of a second factor as an API error, with the status of the operation that asked for it. */
export const secondFactorRefused = (refusal: Refusal, status: 400 | 401) =>
  new ApiError(status, refusal.code, refusal.message);

/**
 * Checks and spends the second factor of an account with TOTP on: either a TOTP code (under the TOTP limits)
 * or a recovery code (under its own, which the TOTP limits never block). Returns undefined when it passed,
 * else why not. Sending both is a bad request: which one was meant would be a guess.
 */
export async function spendSecondFactor(
  account: { id: number; totpSecretEnc: string },
  factor: SecondFactor,
  client: string,
): Promise<Refusal | undefined> {
  const totpCode = factor.totpCode || undefined;
  const recoveryCode = factor.recoveryCode || undefined;
  if (totpCode !== undefined && recoveryCode !== undefined) {
    throw badRequest("invalid_request", "Send a TOTP code or a recovery code, not both.");
  }
  if (recoveryCode !== undefined) {
    const spent = await spendRecoveryCode(account.id, recoveryCode, client);
    return spent ? undefined : REFUSED.wrongRecoveryCode;
  }
  if (totpCode === undefined) return REFUSED.missing;
  const spent = await spendTotpCode(account.id, totpCode, account.totpSecretEnc, client);
  return spent ? undefined : REFUSED.wrongTotpCode;
}

/**
 * For operations that take over or keep an account (replacing the login token, minting a key from a
 * session): with TOTP on, the second factor must pass (else 400); with TOTP off, nothing is asked.
 * Returns whether TOTP is on.
 */
export async function requireSecondFactor(accountId: number, factor: SecondFactor, client: string) {
  const state = await totpState(accountId);
  if (!state.enabled || !state.secret) return false;
  const refusal = await spendSecondFactor({ id: accountId, totpSecretEnc: state.secret }, factor, client);
  if (refusal) throw secondFactorRefused(refusal, 400);
  return true;
}

/**
 * Turns TOTP on once the user proves their app has the pending secret, and makes the account's recovery
 * codes in the same transaction: the answer is the only place they are ever shown.
 */
export async function confirmTotp(accountId: number, code: string, client: string) {
  const state = await totpState(accountId);
  if (state.enabled) throw conflict("totp_already_enabled", "Two-factor sign-in is already on.");
  if (!state.pending) throw conflict("totp_not_started", "Start with POST /account/totp to get a secret.");
  if (!(await spendTotpCode(accountId, code, state.pending, client))) {
    throw secondFactorRefused(REFUSED.wrongTotpCode, 400);
  }
  const fresh = await generateRecoveryCodes();
  const database = await db();
  await database.transaction(async (tx) => {
    await tx
      .update(accounts)
      .set({ totpEnabled: true, totpSecretEnc: state.pending, totpPendingSecretEnc: null })
      .where(eq(accounts.id, accountId));
    await storeRecoveryCodes(tx, accountId, fresh.hashes);
  });
  return { totp_enabled: true as const, recovery_codes: fresh.codes };
}

/** The account's TOTP secret when TOTP is on, else 409: for what only makes sense with it on. */
async function enabledSecret(accountId: number): Promise<string> {
  const state = await totpState(accountId);
  if (!state.enabled || !state.secret) throw conflict("totp_not_enabled", "Two-factor sign-in is not on.");
  return state.secret;
}

/**
 * Turns TOTP off, which takes a current code or a recovery code (so a stolen session alone cannot remove the
 * second factor, and an owner whose codes are throttled still can). The recovery codes go with it.
 */
export async function disableTotp(accountId: number, factor: SecondFactor, client: string) {
  const secret = await enabledSecret(accountId);
  const refusal = await spendSecondFactor({ id: accountId, totpSecretEnc: secret }, factor, client);
  if (refusal) throw secondFactorRefused(refusal, 400);
  const database = await db();
  await database.transaction(async (tx) => {
    await tx
      .update(accounts)
      .set({ totpEnabled: false, totpSecretEnc: null, totpPendingSecretEnc: null })
      .where(eq(accounts.id, accountId));
    await dropRecoveryCodes(tx, accountId);
  });
  return { totp_enabled: false as const };
}

/**
 * A new set of recovery codes in place of the old one, which stops working at once. It takes a second factor
 * (a code, or one of the old recovery codes), so a stolen session cannot swap the owner's codes for its own.
 */
export async function regenerateRecoveryCodes(accountId: number, factor: SecondFactor, client: string) {
  const secret = await enabledSecret(accountId);
  const refusal = await spendSecondFactor({ id: accountId, totpSecretEnc: secret }, factor, client);
  if (refusal) throw secondFactorRefused(refusal, 400);
  const fresh = await generateRecoveryCodes();
  const database = await db();
  await database.transaction((tx) => storeRecoveryCodes(tx, accountId, fresh.hashes));
  return { recovery_codes: fresh.codes };
}
