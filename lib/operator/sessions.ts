import "server-only";
import { and, eq, gt, isNull, lt, or } from "drizzle-orm";
import { Secret } from "otpauth";
import { matchingStep } from "@/lib/accounts/totp";
import { config } from "@/lib/config/env";
import { type Database, databaseHandle } from "@/lib/db/client";
import { operatorSessions, operators } from "@/lib/db/schema";
import type { OperatorRole } from "@/lib/db/types";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { unseal } from "@/lib/util/seal";
import { type Actor, recordAudit } from "./audit";
import { operatorSettings } from "./config";
import {
  generateOperatorSessionToken,
  isWellFormedSessionToken,
  normalizeOperatorSecret,
  operatorSecretHash,
  operatorTotpPurpose,
} from "./credentials";
import { OperatorError } from "./errors";
import { applyDisableRequests, importInbox } from "./operators";

/** A signed-in operator: who, with which role, on which session (its token stays server-side). */
export type OperatorSession = Actor & { sessionId: number; token: string; expiresAt: Date; idleUntil: Date };

/** The cookie: its own name, never the dashboard's, SameSite=Strict, bound to this origin in production. */
export function operatorCookieName(): string {
  return config().mode === "production" ? "__Host-vps_operator" : "vps_operator";
}

export function operatorCookie(value: string, maxAgeSeconds: number): string {
  const secure = config().mode === "production" ? "; Secure" : "";
  return `${operatorCookieName()}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export const clearedOperatorCookie = () => operatorCookie("", 0);

/** The operator cookie's value in a Cookie header, if any. */
export function operatorTokenFromCookies(header: string | null): string | undefined {
  const name = operatorCookieName();
  for (const part of (header ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

const refused = () =>
  new OperatorError(401, "invalid_operator_sign_in", "The sign-in secret or the code is wrong.");

/** Lifetimes as configured: an idle limit that each request moves on, and an absolute one from sign-in. */
const lifetimes = () => {
  const { sessionIdleMinutes, sessionHours } = operatorSettings();
  return { idleMs: sessionIdleMinutes * 60_000, maxMs: sessionHours * 3_600_000 };
};

/** Operators `operator:add` left for the embedded database are taken in before anyone signs in. */
async function takeInNewOperators(database: Database): Promise<void> {
  if (config().databaseUrl) return;
  for (const name of await importInbox(database, config().dataDir)) console.log(`operator ${name} added`);
}

/**
 * Takes one sign-in attempt under the failure limit for every key (429 past any), returning how to give them
 * back: failures keep them, a success returns them.
 */
async function takeAttempt(keys: string[]): Promise<() => Promise<void>> {
  const limiter = limiters().operatorSignIn;
  const taken: string[] = [];
  try {
    for (const key of keys) {
      await consume(limiter, key);
      taken.push(key);
    }
  } catch (error) {
    await Promise.all(taken.map((key) => limiter.refund(key)));
    throw error;
  }
  return async () => {
    await Promise.all(taken.map((key) => limiter.refund(key)));
  };
}

/**
 * Signs an operator in with the secret `operator:add` printed and a current TOTP code (always both). A wrong
 * secret and a wrong code get the same answer; failures are limited per client address and, once the secret
 * is known, per operator; each code works once. A refused code of a known operator is audited.
 */
export async function signIn(input: { secret: string; code: string; client: string }) {
  const handle = await databaseHandle();
  const database = handle.db;
  const giveBackAddress = await takeAttempt([`address:${input.client}`]);
  await takeInNewOperators(database);
  const secret = normalizeOperatorSecret(input.secret);
  const [operator] = secret
    ? await database
        .select()
        .from(operators)
        .where(and(eq(operators.secretHash, operatorSecretHash(secret)), isNull(operators.disabledAt)))
    : [];
  // A deactivated operator's secret is refused like a wrong one.
  if (!operator) throw refused();
  const giveBackOperator = await takeAttempt([`operator:${operator.id}`]);
  const actor: Actor = {
    operatorId: operator.id,
    name: operator.name,
    role: operator.role,
    client: input.client,
  };
  const totp = Secret.fromBase32(
    unseal(config().encryptionKey, operatorTotpPurpose(operator.name), operator.totpSecretEnc),
  );
  const step = matchingStep(totp, input.code.trim());
  const spent =
    step !== undefined &&
    (
      await database
        .update(operators)
        .set({ totpLastStep: step })
        .where(
          and(
            eq(operators.id, operator.id),
            or(isNull(operators.totpLastStep), lt(operators.totpLastStep, step)),
          ),
        )
        .returning({ id: operators.id })
    ).length > 0;
  if (!spent) {
    await recordAudit(database, actor, { action: "sign_in_refused", reason: "wrong or reused TOTP code" });
    throw refused();
  }
  await giveBackAddress();
  await giveBackOperator();
  const { idleMs, maxMs } = lifetimes();
  const token = generateOperatorSessionToken();
  const at = new Date();
  const expiresAt = new Date(at.getTime() + maxMs);
  const session = await database.transaction(async (tx) => {
    const [row] = await tx
      .insert(operatorSessions)
      .values({
        operatorId: operator.id,
        tokenHash: token.hash,
        createdAt: at,
        createdFrom: input.client,
        seenAt: at,
        expiresAt,
      })
      .returning({ id: operatorSessions.id });
    if (!row) throw new Error("operator session insert returned no row");
    await recordAudit(tx, actor, { action: "sign_in" });
    return row;
  });
  return {
    token: token.token,
    session: {
      ...actor,
      sessionId: session.id,
      token: token.token,
      expiresAt,
      idleUntil: new Date(at.getTime() + idleMs),
    } satisfies OperatorSession,
  };
}

/** `seen_at` is written at most this often per session, so reads do not all become writes. */
const SEEN_RESOLUTION_MS = 30_000;

/**
 * The operator session a cookie's token names, if it is live: not ended, its operator not deactivated, within
 * its absolute lifetime and not idle for longer than allowed. Each use moves the idle limit on. Anything else is undefined: the
 * caller answers as if the route did not exist.
 */
export async function operatorSession(
  token: string | undefined,
  client: string,
  at: Date = new Date(),
): Promise<OperatorSession | undefined> {
  if (!token || !isWellFormedSessionToken(token)) return undefined;
  const handle = await databaseHandle();
  // `operator:disable` on the embedded database leaves its work for the app: done before any session counts.
  if (handle.kind === "pglite") await applyDisableRequests(handle.db, config().dataDir);
  const { idleMs } = lifetimes();
  const [row] = await handle.db
    .select({
      sessionId: operatorSessions.id,
      seenAt: operatorSessions.seenAt,
      expiresAt: operatorSessions.expiresAt,
      operatorId: operators.id,
      name: operators.name,
      role: operators.role,
    })
    .from(operatorSessions)
    .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
    .where(
      and(
        eq(operatorSessions.tokenHash, operatorSecretHash(token)),
        isNull(operatorSessions.endedAt),
        isNull(operators.disabledAt),
        gt(operatorSessions.expiresAt, at),
        gt(operatorSessions.seenAt, new Date(at.getTime() - idleMs)),
      ),
    );
  if (!row) return undefined;
  if (at.getTime() - row.seenAt.getTime() > SEEN_RESOLUTION_MS) {
    await handle.db
      .update(operatorSessions)
      .set({ seenAt: at })
      .where(eq(operatorSessions.id, row.sessionId));
  }
  return {
    operatorId: row.operatorId,
    name: row.name,
    role: row.role as OperatorRole,
    client,
    sessionId: row.sessionId,
    token,
    expiresAt: row.expiresAt,
    idleUntil: new Date(Math.min(at.getTime() + idleMs, row.expiresAt.getTime())),
  };
}

/** Ends the session (its cookie no longer works anywhere) and records it. */
export async function signOut(session: OperatorSession): Promise<void> {
  const handle = await databaseHandle();
  await handle.db.transaction(async (tx) => {
    await tx
      .update(operatorSessions)
      .set({ endedAt: new Date() })
      .where(eq(operatorSessions.id, session.sessionId));
    await recordAudit(tx, session, { action: "sign_out" });
  });
}

/** Seconds the cookie should live: until the session's absolute end. */
export const cookieSecondsFor = (session: OperatorSession) =>
  Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
