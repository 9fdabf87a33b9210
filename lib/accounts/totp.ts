import "server-only";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { conflict } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { accounts } from "@/lib/db/schema";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { qrDataUri } from "@/lib/util/qr";
import { seal, unseal } from "@/lib/util/seal";

const PERIOD_SECONDS = 30;
const purpose = (accountId: number) => `account:${accountId}:totp`;

/**
 * RFC 6238 with the defaults every authenticator app uses: SHA-1, 6 digits, 30-second steps. The label and
 * issuer only name the entry in the app (customers' accounts and operators share the rules, not the entries).
 */
export const totpFor = (secret: Secret, label: string, issuer = "Prepaid VPS") =>
  new TOTP({ issuer, label, secret, algorithm: "SHA1", digits: 6, period: PERIOD_SECONDS });

const accountLabel = (accountId: number) => `account ${accountId}`;

/** The 30-second step `code` belongs to, accepting one step of clock drift either way; undefined if wrong. */
export function matchingStep(secret: Secret, code: string): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpFor(secret, "check").validate({ token: code, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(Date.now() / 1000 / PERIOD_SECONDS) + delta;
}

/**
 * Takes one code attempt under both TOTP limits (429 past either) and returns how to give it back. Only
 * failures may keep it: a success, or an attempt refused by the other limit, costs nothing. The pair limit
 * comes first, so an address past its own limit never reaches the account's count.
 *
 * A right code is refused too once the account is past its limit: if it were let through, the answers would
 * still tell a right guess from a wrong one, and only the per-address limit (which many addresses defeat)
 * would bound the guessing. The owner's way past that refusal is a recovery code (recovery-codes.ts).
 */
async function takeTotpAttempt(accountId: number, client: string): Promise<() => Promise<void>> {
  const { totpFailures, totpAccountFailures } = limiters();
  const pair = `${accountId} ${client}`;
  await consume(totpFailures, pair);
  try {
    await consume(totpAccountFailures, String(accountId));
  } catch (error) {
    await totpFailures.refund(pair);
    throw error;
  }
  return async () => {
    await Promise.all([totpFailures.refund(pair), totpAccountFailures.refund(String(accountId))]);
  };
}

/**
 * Checks a code and spends it: the step it belongs to must be later than the last accepted one, recorded by a
 * conditional update, so a code (even one observed by someone else) works once. Wrong codes are counted per
 * account and client address, and more loosely per account; the attempt is taken before the check, so
 * parallel guesses cannot slip past the limit, and given back when the code was right.
 */
export async function spendTotpCode(
  accountId: number,
  code: string,
  sealedSecret: string,
  client: string,
): Promise<boolean> {
  const giveBack = await takeTotpAttempt(accountId, client);
  const secret = Secret.fromBase32(unseal(config().encryptionKey, purpose(accountId), sealedSecret));
  const step = matchingStep(secret, code);
  if (step === undefined) return false;
  const database = await db();
  const [spent] = await database
    .update(accounts)
    .set({ totpLastStep: step })
    .where(
      and(eq(accounts.id, accountId), or(isNull(accounts.totpLastStep), lt(accounts.totpLastStep, step))),
    )
    .returning({ id: accounts.id });
  if (spent === undefined) return false;
  await giveBack();
  return true;
}

/** The account's TOTP state: on or off, and the sealed secrets (the active one, the one waiting for a code). */
export async function totpState(accountId: number) {
  const database = await db();
  const [row] = await database
    .select({
      enabled: accounts.totpEnabled,
      secret: accounts.totpSecretEnc,
      pending: accounts.totpPendingSecretEnc,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!row) throw new Error(`account ${accountId} not found`);
  return row;
}

/** Starts enabling TOTP: a fresh secret, as text and as an otpauth:// QR, waiting for its first code. */
export async function beginTotpSetup(accountId: number) {
  if ((await totpState(accountId)).enabled) {
    throw conflict(
      "totp_already_enabled",
      "Two-factor sign-in is already on; disable it first to change it.",
    );
  }
  const secret = new Secret({ size: 20 });
  const database = await db();
  await database
    .update(accounts)
    .set({ totpPendingSecretEnc: seal(config().encryptionKey, purpose(accountId), secret.base32) })
    .where(eq(accounts.id, accountId));
  const uri = totpFor(secret, accountLabel(accountId)).toString();
  return { secret: secret.base32, otpauth_uri: uri, qr_data_uri: await qrDataUri(uri) };
}

/**
 * Ends the account-wide count of wrong codes: called once the login token was replaced with a second factor,
 * so the throttle that the old token's holder caused lifts with that token. Only someone who passed a second
 * factor can trigger it, so it gives no guesser a fresh budget of their own making.
 */
export async function liftTotpThrottle(accountId: number): Promise<void> {
  await limiters().totpAccountFailures.reset(String(accountId));
}
