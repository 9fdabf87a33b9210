import "server-only";
import { eq } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import { type Database, db } from "@/lib/db/client";
import { consoleSessions } from "@/lib/db/schema";
import { endLiveConsoles } from "@/lib/servers/console/gateway";
import { now } from "@/lib/util/clock";
import { type Actor, recordAudit } from "./audit";
import { OperatorError } from "./errors";

/**
 * Closes any customer's console session (or withdraws its unused ticket), with the reason in the audit log,
 * in the same transaction as the record's close. The instance holding it ends it now if it is this one, else
 * at its next seen-tick (within 10 s), finding it closed in the record.
 */
export async function closeConsole(actor: Actor, sessionId: number, reason: string, database?: Database) {
  const handle = database ?? (await db());
  const session = await handle.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(consoleSessions)
      .where(eq(consoleSessions.id, sessionId))
      .for("update");
    if (!row) throw notFound(`No console session with id ${sessionId}.`);
    if (row.closedAt)
      throw new OperatorError(409, "console_closed", "This console session is closed already.");
    await tx
      .update(consoleSessions)
      .set({ closedAt: now(), closeReason: "closed_by_operator" })
      .where(eq(consoleSessions.id, sessionId));
    await recordAudit(tx, actor, {
      action: "close_console",
      target: `console:${sessionId}`,
      reason,
      detail: { account_id: row.accountId, server_id: row.serverId, was_open: row.openedAt !== null },
    });
    return row;
  });
  await endLiveConsoles([sessionId], "closed_by_operator");
  return {
    id: session.id,
    account_id: session.accountId,
    server_id: session.serverId,
    closed: true as const,
  };
}
