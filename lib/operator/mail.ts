import "server-only";
import { eq } from "drizzle-orm";
import { conflict, notFound } from "@/lib/api/errors";
import { type Database, db } from "@/lib/db/client";
import { accounts, servers } from "@/lib/db/schema";
import { runJobNow } from "@/lib/servers/jobs";
import { APPLY_WAIT_MS, setSmtpOpen } from "@/lib/servers/network/firewall";
import { lockServer } from "@/lib/servers/rows";
import { type Actor, type AuditAction, recordAudit } from "./audit";

/**
 * Outbound mail (tcp 25) is blocked on every server by its firewall, as policy; an operator opens it for one
 * server on request (and may close it again), recorded in the audit log with the reason in the same
 * transaction. The server's host applies the change like any firewall change.
 */
const AUDITED = { open: "open_smtp", block: "block_smtp" } as const satisfies Record<string, AuditAction>;

export async function setServerSmtp(
  actor: Actor,
  serverId: number,
  request: { open: boolean; reason: string },
  database?: Database,
): Promise<{ server_id: number; smtp: "open" | "blocked" }> {
  const handle = database ?? (await db());
  const jobId = await handle.transaction(async (tx) => {
    const [found] = await tx
      .select({ accountId: servers.accountId })
      .from(servers)
      .where(eq(servers.id, serverId));
    if (!found) throw notFound(`No server with id ${serverId}.`);
    // Account first, then the server: the order every transaction on a server locks in.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, found.accountId)).for("update");
    const row = await lockServer(tx, serverId);
    if (row.status === "terminated") throw conflict("server_terminated", "This server is terminated.");
    const queued = await setSmtpOpen(tx, row, request.open);
    const action = AUDITED[request.open ? "open" : "block"];
    await recordAudit(tx, actor, {
      action,
      target: `server:${serverId}`,
      reason: request.reason,
      detail: { account_id: row.accountId },
    });
    return queued;
  });
  if (jobId !== undefined && database === undefined) await runJobNow(jobId, APPLY_WAIT_MS);
  return { server_id: serverId, smtp: request.open ? "open" : "blocked" };
}
