import "server-only";
import { endLiveConsoles } from "./gateway";
import { closeConsolesInRecord } from "./tickets";

/**
 * `DELETE /servers/{id}/console`: closes the account's consoles of the server (a console someone else may
 * have opened with a key since lost), and withdraws its unused tickets. Those this instance holds end now;
 * another instance ends its own at its next seen-tick, finding them closed in the record.
 */
export async function closeServerConsoles(
  accountId: number,
  serverId: number,
): Promise<{ server_id: number; closed: number }> {
  const closed = await closeConsolesInRecord(accountId, serverId, "closed_by_owner");
  await endLiveConsoles(closed, "closed_by_owner");
  return { server_id: serverId, closed: closed.length };
}
