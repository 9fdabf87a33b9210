import "server-only";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { ApiError, notFound } from "@/lib/api/errors";
import type { Database } from "@/lib/db/client";
import { ledgerAdjustments, operatorSessions, operators } from "@/lib/db/schema";
import { OPERATOR_ROLES, type OperatorRole } from "@/lib/db/types";
import { seal } from "@/lib/util/seal";
import { type Actor, type MachineActor, recordAudit } from "./audit";
import {
  generateOperatorSecret,
  generateOperatorTotp,
  OPERATOR_NAME,
  operatorTotpPurpose,
} from "./credentials";
import { OperatorError } from "./errors";

/** What is stored of a new operator: hashes and sealed values only, never a secret in the clear. */
const EnrollmentSchema = z.strictObject({
  name: z.string().regex(OPERATOR_NAME),
  role: z.enum(OPERATOR_ROLES),
  secretHash: z.string().regex(/^[0-9a-f]{64}$/),
  totpSecretEnc: z.string().min(1),
});
export type Enrollment = z.infer<typeof EnrollmentSchema>;

/** A new operator's credentials, to be printed once, and what is kept of them. */
export type NewOperator = { enrollment: Enrollment; secret: string; totpSecret: string; otpauthUri: string };

export function newOperator(name: string, role: OperatorRole, encryptionKey: Buffer): NewOperator {
  if (!OPERATOR_NAME.test(name)) {
    throw new RangeError(
      "the name must be 1 to 32 lower-case letters, digits, dots, hyphens or underscores, starting with a letter or digit",
    );
  }
  const secret = generateOperatorSecret();
  const totp = generateOperatorTotp(name);
  return {
    enrollment: {
      name,
      role,
      secretHash: secret.hash,
      totpSecretEnc: seal(encryptionKey, operatorTotpPurpose(name), totp.secret),
    },
    secret: secret.secret,
    totpSecret: totp.secret,
    otpauthUri: totp.uri,
  };
}

/** Adds the operator; `name_taken` when another operator has the name (nothing is changed then). */
export async function insertOperator(database: Database, enrollment: Enrollment) {
  const [added] = await database
    .insert(operators)
    .values(enrollment)
    .onConflictDoNothing({ target: operators.name })
    .returning({ id: operators.id });
  if (added) return "added" as const;
  const [existing] = await database
    .select({ secretHash: operators.secretHash })
    .from(operators)
    .where(eq(operators.name, enrollment.name));
  // The same enrollment added a moment ago (two sign-ins reading the inbox at once) is not a clash.
  return existing?.secretHash === enrollment.secretHash ? ("added" as const) : ("name_taken" as const);
}

/**
 * The embedded database belongs to the running app's process alone, so `operator:add` on PGlite leaves the new
 * operator in DATA_DIR/operators (mode 0700, files 0600) and the app takes it from there before the next
 * operator sign-in. On PostgreSQL the command writes to the database directly.
 */
export const inboxDir = (dataDir: string) => path.join(dataDir, "operators");

export function writeToInbox(dataDir: string, enrollment: Enrollment): string {
  const dir = inboxDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${enrollment.name}.json`);
  if (existsSync(file)) throw new Error(`an operator named ${enrollment.name} is already waiting in ${dir}`);
  writeFileSync(file, JSON.stringify(enrollment, null, 2), { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return file;
}

/**
 * Adds the operators waiting in the inbox and removes their files. One whose name is taken by another operator
 * is set aside as `<name>.json.rejected` and reported; a file that is not an enrollment is set aside the same way.
 */
export async function importInbox(database: Database, dataDir: string): Promise<string[]> {
  const dir = inboxDir(dataDir);
  if (!existsSync(dir)) return [];
  const added: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (!entry.endsWith(".json")) continue;
    const file = path.join(dir, entry);
    let enrollment: Enrollment;
    try {
      enrollment = EnrollmentSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    } catch {
      console.error(`operator inbox: ${entry} is not an operator enrollment; set aside`);
      setAside(file);
      continue;
    }
    const outcome = await insertOperator(database, enrollment);
    if (outcome === "name_taken") {
      console.error(`operator inbox: the name ${enrollment.name} is taken by another operator; set aside`);
      setAside(file);
      continue;
    }
    rmSync(file, { force: true });
    added.push(enrollment.name);
  }
  return added;
}

function setAside(file: string) {
  try {
    renameSync(file, `${file}.rejected`);
  } catch {
    // Another process set it aside or imported it first.
  }
}

/** An operator as the console lists them (admins): never a secret or a hash. */
export type OperatorListing = {
  name: string;
  role: OperatorRole;
  created_at: string;
  disabled_at: string | null;
  live_sessions: number;
  last_seen_at: string | null;
  /** Their own adjustments of the last 24 hours (credits and debits alike, approved ones left out). */
  adjusted_24h_usd: number;
};

/** Every operator, deactivated ones included (the audit log names them), by name. */
export async function listOperators(database: Database, at: Date = new Date()): Promise<OperatorListing[]> {
  const rows = await database
    .select({
      id: operators.id,
      name: operators.name,
      role: operators.role,
      createdAt: operators.createdAt,
      disabledAt: operators.disabledAt,
      // Written out in full: inside the subqueries an unqualified column would be the subquery's own.
      live: sql<number>`(SELECT count(*) FROM ${operatorSessions} s WHERE s.operator_id = operators.id
        AND s.ended_at IS NULL AND s.expires_at > ${at})`.mapWith(Number),
      lastSeen: sql<Date | null>`(SELECT max(s.seen_at) FROM ${operatorSessions} s
        WHERE s.operator_id = operators.id)`.mapWith((value) => (value ? new Date(value) : null)),
      adjusted: sql<number>`(SELECT coalesce(sum(abs(a.amount_cents)), 0) FROM ${ledgerAdjustments} a
        WHERE a.operator_id = operators.id AND a.approved_by IS NULL
          AND a.created_at > ${new Date(at.getTime() - 24 * 3_600_000)})`.mapWith(Number),
    })
    .from(operators)
    .orderBy(operators.name);
  return rows.map((row) => ({
    name: row.name,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    disabled_at: row.disabledAt?.toISOString() ?? null,
    live_sessions: row.live,
    last_seen_at: row.lastSeen?.toISOString() ?? null,
    adjusted_24h_usd: row.adjusted / 100,
  }));
}

/**
 * Deactivates an operator (someone leaving, a lost laptop): in one transaction their every session ends (a
 * cookie in use stops working at its next request) and they can no longer sign in; the audit log keeps who
 * did it and why. `by` is the admin doing it (not themselves), or the machine (`npm run operator:disable`).
 * The operator's row stays: the audit log refers to it.
 */
export async function disableOperator(
  database: Database,
  by: Actor | MachineActor,
  name: string,
  reason: string,
): Promise<{ sessionsEnded: number }> {
  return database.transaction(async (tx) => {
    const [target] = await tx.select().from(operators).where(eq(operators.name, name)).for("update");
    if (!target) throw notFound(`No operator named ${name}.`);
    if (target.disabledAt) {
      throw new OperatorError(
        409,
        "operator_disabled_already",
        `${name} was deactivated at ${target.disabledAt.toISOString()}.`,
      );
    }
    if (by.operatorId === target.id) {
      throw new OperatorError(
        409,
        "cannot_disable_self",
        "You cannot deactivate yourself from your own session: ask another admin, or run `npm run operator:disable` on the machine.",
      );
    }
    const at = new Date();
    await tx.update(operators).set({ disabledAt: at }).where(eq(operators.id, target.id));
    const ended = await tx
      .update(operatorSessions)
      .set({ endedAt: at })
      .where(and(eq(operatorSessions.operatorId, target.id), isNull(operatorSessions.endedAt)))
      .returning({ id: operatorSessions.id });
    await recordAudit(tx, by, {
      action: "disable_operator",
      target: `operator:${name}`,
      reason,
      detail: { role: target.role, sessions_ended: ended.length },
    });
    return { sessionsEnded: ended.length };
  });
}

/**
 * `npm run operator:disable` on the embedded database, which belongs to the running app's process: the
 * command leaves `NAME.disable` (the reason, who ran it) in the operators folder, and the app applies it at
 * the next operator request, before that request's session is looked at.
 */
const DISABLE_SUFFIX = ".disable";

const DisableRequestSchema = z.strictObject({
  reason: z.string().min(3).max(500),
  by: z.string().min(1).max(200),
});

export function writeDisableRequest(dataDir: string, name: string, request: { reason: string; by: string }) {
  if (!OPERATOR_NAME.test(name)) throw new RangeError(`${name} is not an operator's name`);
  const dir = inboxDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${name}${DISABLE_SUFFIX}`);
  writeFileSync(file, JSON.stringify(DisableRequestSchema.parse(request)), { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** Applies the deactivations `operator:disable` left for the embedded database; returns the names done. */
export async function applyDisableRequests(database: Database, dataDir: string): Promise<string[]> {
  const dir = inboxDir(dataDir);
  let entries: string[];
  try {
    entries = (await readdir(dir)).filter((entry) => entry.endsWith(DISABLE_SUFFIX));
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const entry of entries) {
    const file = path.join(dir, entry);
    const name = entry.slice(0, -DISABLE_SUFFIX.length);
    try {
      const request = DisableRequestSchema.parse(JSON.parse(readFileSync(file, "utf8")));
      await disableOperator(
        database,
        { operatorId: null, name: request.by, client: "machine" },
        name,
        request.reason,
      );
      done.push(name);
    } catch (error) {
      // Unknown or deactivated already: nothing left to do with it; anything else waits for the next request.
      if (!(error instanceof ApiError) && !(error instanceof z.ZodError) && !(error instanceof SyntaxError)) {
        throw error;
      }
    }
    rmSync(file, { force: true });
  }
  return done;
}
