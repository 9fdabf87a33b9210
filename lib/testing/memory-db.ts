import { createHash } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { CreateServerRequest } from "@/lib/api/schemas/servers";
import type { Database } from "@/lib/db/client";
import { accounts, ledgerEntries, operators, servers, type topups } from "@/lib/db/schema";
import type { OperatorRole } from "@/lib/db/types";
import { postLedgerEntry } from "@/lib/ledger/ledger";

const MIGRATIONS = path.join(process.cwd(), "lib/db/migrations");

/**
 * Where a migrated empty database is kept as a PGlite dump, named by the migrations' and PGlite's contents:
 * a fresh PGlite runs initdb (seconds on a busy machine), loading a dump of one does not. Shared by every
 * test file and worker; a changed migration names a new file.
 */
function templatePath(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MIGRATIONS, { recursive: true, encoding: "utf8" }).sort()) {
    const full = path.join(MIGRATIONS, file);
    if (statSync(full).isFile()) hash.update(file).update(readFileSync(full));
  }
  hash.update(readFileSync(path.join(process.cwd(), "node_modules/@electric-sql/pglite/package.json")));
  return path.join(tmpdir(), `vps-test-pglite-${hash.digest("hex").slice(0, 16)}.tar`);
}

async function migrated(client: PGlite): Promise<Database> {
  const db = drizzle({ client, schema: await import("@/lib/db/schema") });
  await migrate(db, { migrationsFolder: MIGRATIONS });
  return db as unknown as Database;
}

let template: Promise<Blob> | undefined;

/** The migrated empty database as a dump: read from its file, or made once and written there. */
function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const file = templatePath();
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const client = await PGlite.create();
    await migrated(client);
    const dump = await client.dumpDataDir("none");
    await client.close();
    // Written aside and renamed: another worker may be making the same file at the same time.
    const partial = `${file}.${process.pid}.${Date.now()}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
    return dump;
  })();
  return template;
}

/** A fresh in-memory PGlite with every migration applied: the real schema, its CHECKs and unique keys. */
export async function openMemoryDatabase(): Promise<{ db: Database; close: () => Promise<void> }> {
  const client = await PGlite.create({ loadDataDir: await migratedTemplate() });
  // Applies nothing on a current template; it still checks that the dump holds every migration.
  const db = await migrated(client);
  return { db, close: () => client.close() };
}

/** An operator row (no usable secret: for services acting as one), returning its id. */
export async function insertOperatorRow(db: Database, name: string, role: OperatorRole = "admin") {
  const [row] = await db
    .insert(operators)
    .values({
      name,
      role,
      secretHash: createHash("sha256").update(name).digest("hex"),
      totpSecretEnc: "v1:x",
    })
    .returning({ id: operators.id });
  if (!row) throw new Error("operator insert returned no row");
  return row.id;
}

/** A new account holding nothing, as POST /account makes one. */
export async function createAccount(db: Database): Promise<number> {
  const [row] = await db
    .insert(accounts)
    .values({ loginTokenHash: `test-${Math.random()}` })
    .returning({ id: accounts.id });
  if (!row) throw new Error("account insert returned no row");
  return row.id;
}

/**
 * A BTC deposit top-up's row as the app writes one: 50 USD asking 0.001 BTC (100,000 sat) at 50,000 USD, two
 * confirmations, pending; `fields` sets the rest (times, status) or changes what differs.
 */
export function btcTopupValues(
  accountId: number,
  ref: string,
  fields: Partial<typeof topups.$inferInsert> = {},
): typeof topups.$inferInsert {
  return {
    ref,
    accountId,
    method: "deposit",
    coin: "BTC",
    network: "bitcoin",
    amountCents: 5000,
    depositAddress: `bcrt1q${ref}`,
    depositUnits: "100000",
    rateUsd: "50000",
    rateSource: "test",
    confirmationsRequired: 2,
    ...fields,
  };
}

/** An order for a monthly pup in nl, as the API receives it. */
export const PUP_ORDER: CreateServerRequest = {
  plan: "pup",
  location: "nl",
  os: "debian-13",
  cycle: "monthly",
  auto_renew: false,
};

let hostnames = 0;

/** A monthly pup server in nl for `accountId`, as ordering stores it; `values` overrides any column. */
export async function insertServer(
  db: Database,
  accountId: number,
  values: Partial<typeof servers.$inferInsert> = {},
) {
  const [row] = await db
    .insert(servers)
    .values({
      accountId,
      plan: "pup",
      location: "nl",
      os: "debian-13",
      hostname: `h${accountId}-${++hostnames}`,
      cycle: "monthly",
      priceCents: 400,
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
      ...values,
    })
    .returning();
  if (!row) throw new Error("server insert returned no row");
  return row;
}

/** A new account holding `balanceCents`, credited as a top-up through the ledger like a real one. */
export async function createFundedAccount(db: Database, balanceCents: number): Promise<number> {
  const accountId = await createAccount(db);
  await db.transaction((tx) =>
    postLedgerEntry(tx, {
      accountId,
      amountCents: balanceCents,
      kind: "topup",
      reference: `topup:${accountId}`,
      apiKeyId: null,
    }),
  );
  return accountId;
}

/** The money invariant: an account's balance is exactly the sum of its ledger rows. */
export async function balanceAndLedgerSum(db: Database, accountId: number) {
  const [account] = await db
    .select({ balance: accounts.balanceCents })
    .from(accounts)
    .where(sql`${accounts.id} = ${accountId}`);
  const [sum] = await db
    .select({ total: sql<string>`coalesce(sum(${ledgerEntries.amountCents}), 0)` })
    .from(ledgerEntries)
    .where(sql`${ledgerEntries.accountId} = ${accountId}`);
  return { balance: account?.balance ?? Number.NaN, ledgerSum: Number(sum?.total ?? Number.NaN) };
}

/**
 * Prepares process.env for config(), which reads it once on first use: demo secrets in a scratch
 * DATA_DIR, the simulated provisioner, no hypervisors unless `overrides` names some. Call it at module
 * load, before anything reads config(); the returned function restores the environment and removes the
 * scratch directory.
 */
export function scratchConfigEnv(overrides: Record<string, string> = {}): () => void {
  const dataDir = mkdtempSync(path.join(tmpdir(), "memory-db-config-"));
  const values: Record<string, string | undefined> = {
    DATA_DIR: dataDir,
    PROVISIONER: undefined,
    HYPERVISORS: undefined,
    ...overrides,
  };
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const apply = (env: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(values);
  return () => {
    apply(saved);
    rmSync(dataDir, { recursive: true, force: true });
  };
}
