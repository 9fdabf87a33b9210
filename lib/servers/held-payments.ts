import "server-only";
import { and, eq } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";
import { heldOrderPayments, servers } from "@/lib/db/schema";
import { recordServerSuspended } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { serverSettings } from "./config";
import { enqueueJob } from "./jobs";
import type { ServerRow } from "./present";

/**
 * The server side of an order paid with x402 (its payment held, not settled, while the server is built): the
 * build's outcome decides the payment. Settling it is lib/purchases/order.ts's, which the background runs.
 */

/** Who settles due payments as soon as they are due (the background), rather than at its next pass. */
const dueListeners = new Set<() => void>();

export function onHeldPaymentsDue(listener: () => void): void {
  dueListeners.add(listener);
}

/** After the transaction that made a payment due has committed: its settlement may start now. */
export function announceHeldPaymentsDue(): void {
  for (const listener of dueListeners) listener();
}

/** The order's server answers: its held payment is due to be settled (announceHeldPaymentsDue after commit). */
export async function markHeldPaymentDue(tx: Tx, serverId: number): Promise<void> {
  await tx
    .update(heldOrderPayments)
    .set({ state: "due" })
    .where(and(eq(heldOrderPayments.serverId, serverId), eq(heldOrderPayments.state, "held")));
}

/**
 * The order ends before its server was built (the build failed for good, or its owner ended it): its payment
 * is released, never submitted. True when there was one, so the caller knows nothing was charged to refund.
 */
export async function releaseHeldPayment(tx: Tx, serverId: number, reason: string): Promise<boolean> {
  const released = await tx
    .update(heldOrderPayments)
    .set({ state: "released", reason, decidedAt: now() })
    .where(and(eq(heldOrderPayments.serverId, serverId), eq(heldOrderPayments.state, "held")))
    .returning({ id: heldOrderPayments.id });
  return released.length > 0;
}

/**
 * The order's payment could not be settled (the payer moved the funds, the authorization expired): the server
 * is treated as one whose period ended unpaid. It is stopped and suspended now, `status_reason` says why, a
 * renewal from the balance brings it back, and past the grace period it is terminated (lib/servers/lifecycle).
 */
export async function suspendUnpaidOrder(tx: Tx, row: ServerRow, reason: string): Promise<void> {
  // Ended by its owner meanwhile, or already stopped for another reason: nothing to stop.
  if (row.status !== "active") return;
  const current = now();
  const terminatesAt = new Date(current.getTime() + serverSettings().graceDays * 86_400_000);
  await tx
    .update(servers)
    .set({
      status: "suspended",
      suspendedAt: current,
      powerState: "stopped",
      expiresAt: current,
      statusReason: `The x402 payment for this order could not be settled (${reason}); the server is stopped. Renew it from the balance before ${terminatesAt.toISOString()} or it is terminated then.`,
    })
    .where(eq(servers.id, row.id));
  await enqueueJob(tx, row.id, "power", { action: "stop" });
  await recordServerSuspended(tx, row.id, terminatesAt);
}
