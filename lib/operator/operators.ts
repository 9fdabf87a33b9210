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
import path from "node:path";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/lib/db/client";
import { operators } from "@/lib/db/schema";
import { OPERATOR_ROLES, type OperatorRole } from "@/lib/db/types";
import { seal } from "@/lib/util/seal";
import {
  generateOperatorSecret,
  generateOperatorTotp,
  OPERATOR_NAME,
  operatorTotpPurpose,
} from "./credentials";

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
