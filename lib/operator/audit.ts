import "server-only";
import { and, desc, eq, lt } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";
import { type Database, db } from "@/lib/db/client";
import { operatorAudit } from "@/lib/db/schema";
import type { OperatorRole } from "@/lib/db/types";

/** Who acts, and from where: every operator action is recorded with these. */
export type Actor = { operatorId: number; name: string; role: OperatorRole; client: string };

/** An action taken on the machine (a command with the app's environment), not by a signed-in operator. */
export type MachineActor = { operatorId: null; name: string; client: string };

export type AuditAction =
  | "sign_in"
  | "sign_in_refused"
  | "sign_out"
  | "suspend_server"
  | "lift_server"
  | "suspend_account"
  | "lift_account"
  | "adjust_ledger"
  | "review_payment"
  | "drain_host"
  | "undrain_host"
  | "request_adjustment"
  | "approve_adjustment"
  | "refuse_adjustment"
  | "disable_operator"
  | "close_console"
  | "open_smtp"
  | "block_smtp";

export type AuditRecord = {
  action: AuditAction;
  target?: string | null;
  reason?: string | null;
  detail?: Record<string, unknown>;
};

/**
 * Appends one entry, in the caller's transaction where the action changes something, so the change and its
 * record commit together or not at all. The table refuses updates and deletes (migration 0021).
 */
export async function recordAudit(
  tx: Tx | Database,
  actor: Actor | MachineActor,
  record: AuditRecord,
): Promise<void> {
  await tx.insert(operatorAudit).values({
    operatorId: actor.operatorId,
    operatorName: actor.name,
    action: record.action,
    target: record.target ?? null,
    reason: record.reason ?? null,
    detail: record.detail ? JSON.stringify(record.detail) : null,
    client: actor.client,
  });
}

export type AuditEntry = {
  id: number;
  at: string;
  operator: string;
  action: string;
  target: string | null;
  reason: string | null;
  detail: Record<string, unknown> | null;
  client: string;
};

export const AUDIT_PAGE_SIZE = 100;

/** Newest first, a page at a time (`beforeId`: the last id of the page before), optionally for one target. */
export async function listAudit(
  options: { beforeId?: number; target?: string; limit?: number } = {},
  database?: Database,
): Promise<{ entries: AuditEntry[]; nextBefore: number | null }> {
  database ??= await db();
  const limit = options.limit ?? AUDIT_PAGE_SIZE;
  const rows = await database
    .select()
    .from(operatorAudit)
    .where(
      and(
        options.beforeId ? lt(operatorAudit.id, options.beforeId) : undefined,
        options.target ? eq(operatorAudit.target, options.target) : undefined,
      ),
    )
    .orderBy(desc(operatorAudit.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    entries: page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      operator: row.operatorName,
      action: row.action,
      target: row.target,
      reason: row.reason,
      detail: row.detail ? (JSON.parse(row.detail) as Record<string, unknown>) : null,
      client: row.client,
    })),
    nextBefore: rows.length > limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}
