import { readFileSync } from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { operatorAudit, operators } from "@/lib/db/schema";
import { insertOperatorRow, openMemoryDatabase } from "@/lib/testing/memory-db";
import { listAudit, recordAudit } from "./audit";

/** The deploy kit's step, statement by statement, as a superuser runs it with psql (meta-commands left out). */
const auditOwnerSql = () =>
  readFileSync(path.join(process.cwd(), "deploy/postgresql/audit-owner.sql"), "utf8")
    .split("\n")
    .filter((line) => !line.startsWith("\\") && !line.startsWith("--"))
    .join("\n")
    .split(";")
    .map((statement) => statement.trim())
    .filter(Boolean);

/**
 * deploy/postgresql/audit-owner.sql on the real schema: the app's role (`vps`, owning every other table as
 * after its migrations) keeps reading and appending to the audit log, and can no longer change it in any way:
 * not through its triggers, their functions, the table's definition, nor by backdating an entry.
 */
describe("the audit log owned by a role of its own (deploy/postgresql/audit-owner.sql)", () => {
  let db: Database;
  let close: () => Promise<void>;
  let operatorId: number;
  beforeAll(async () => {
    ({ db, close } = await openMemoryDatabase());
    operatorId = await insertOperatorRow(db, "auditor");
    // As roles.sql and the app's migrations leave it: the app's role owns what it made.
    const asMigrated = [
      "CREATE ROLE vps_owner NOLOGIN",
      "CREATE ROLE vps LOGIN",
      "GRANT USAGE, CREATE ON SCHEMA public TO vps",
      `DO $$ DECLARE t record; BEGIN
        FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' LOOP
          EXECUTE format('ALTER TABLE %I OWNER TO vps', t.tablename);
        END LOOP;
      END $$`,
      "ALTER FUNCTION operator_audit_append_only() OWNER TO vps",
      "ALTER FUNCTION operator_audit_stamp() OWNER TO vps",
    ];
    for (const statement of [...asMigrated, ...auditOwnerSql()]) await db.execute(sql.raw(statement));
    await db.execute(sql.raw("SET ROLE vps"));
  }, 120_000);
  afterAll(async () => close());

  const actor = () => ({ operatorId, name: "auditor", role: "admin" as const, client: "192.0.2.1" });

  /** The database's refusal of `statement` as the app's role, or undefined when it was let through. */
  async function refusal(statement: string): Promise<string | undefined> {
    try {
      await db.execute(sql.raw(statement));
      return undefined;
    } catch (error) {
      const thrown = error as Error & { cause?: Error };
      return thrown.cause?.message ?? thrown.message;
    }
  }

  it("lets the app append and read, and refuses it every way to change, remove or backdate an entry", async () => {
    await recordAudit(db, actor(), { action: "sign_in" });
    await db.insert(operatorAudit).values({
      operatorId,
      operatorName: "auditor",
      action: "sign_out",
      client: "192.0.2.1",
      at: new Date("2001-01-01T00:00:00Z"),
    });
    const { entries } = await listAudit({}, db);
    expect(entries.map((entry) => entry.action)).toEqual(["sign_out", "sign_in"]);
    // Dated when written, whatever the insert said.
    expect(Date.parse(entries[0]?.at ?? "")).toBeGreaterThan(Date.parse("2020-01-01"));

    for (const statement of [
      "UPDATE operator_audit SET reason = 'rewritten'",
      "DELETE FROM operator_audit",
      "TRUNCATE operator_audit",
      "ALTER TABLE operator_audit DISABLE TRIGGER operator_audit_no_update",
      "DROP TRIGGER operator_audit_no_update ON operator_audit",
      "CREATE OR REPLACE FUNCTION operator_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END; $$",
      "CREATE OR REPLACE FUNCTION operator_audit_stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END; $$",
      "ALTER TABLE operator_audit OWNER TO vps",
      "DROP TABLE operator_audit",
    ]) {
      expect(await refusal(statement), statement).toMatch(/permission denied|must be owner/);
    }
    expect((await listAudit({}, db)).entries).toHaveLength(2);
    // The rest of the app's tables are its own as before.
    await db.update(operators).set({ totpLastStep: 1 }).where(eq(operators.id, operatorId));
  });
});
