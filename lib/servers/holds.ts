import "server-only";
import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { ApiError, conflict } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { type Database, db } from "@/lib/db/client";
import { accounts, operatorSuspensions, servers } from "@/lib/db/schema";
import { recordServerHeld, recordServerReleased } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { enqueueJob } from "./jobs";
import type { ServerRow } from "./present";
import { endRescueWithStop } from "./rescue";

/**
 * An operator's hold on a server (abuse handling): the server is `suspended` (stopped, its data kept) with
 * `status_reason` saying so, whatever it was before; no new status exists for it. Its paid period waits while
 * the hold lasts unless the operator let it run (`held_pauses_period`): on release the time held is added to
 * `expires_at`, so a server neither lapses nor reaches termination while it is being looked into. Release
 * gives back what the server had: active (and running, if it ran) while its period lasts, else suspended for
 * its lapsed period as any other.
 */

export const holdReasonText = (reason: string) => `Suspended by the operator: ${reason}`;

/**
 * The refusal of what needs an active server: `needs` says what (e.g. "Power actions need an active server"),
 * then why this one is not, with the operator's reason when it is held.
 */
export const notActive = (row: Pick<ServerRow, "status" | "heldReason">, needs: string) =>
  conflict(
    "server_not_active",
    row.heldReason ? `${needs}. ${holdReasonText(row.heldReason)}` : `${needs}; this one is ${row.status}.`,
  );

/**
 * While the operator holds a server its owner cannot destroy what is being looked into: `what` (terminating
 * it, deleting a snapshot) is refused with 409 `server_held`, saying why and what still works.
 */
export function refuseWhileHeld(row: Pick<ServerRow, "heldSince" | "heldReason">, what: string): void {
  if (!row.heldSince) return;
  throw conflict(
    "server_held",
    `${holdReasonText(row.heldReason ?? "")}. While the suspension lasts, ${what} is refused, so that nothing ` +
      "under review is destroyed; you may still renew the server and top up. It is possible again once the " +
      "operator lifts the suspension.",
  );
}

/** `scope`: the server's own suspension, or its account's (every server held with the account's reason). */
export type Hold = { reason: string; pausesPeriod: boolean; scope?: "server" | "account" };

/**
 * Puts the locked server on hold at `at`; a terminated server needs none, a held one takes the new reason. A
 * server in rescue mode leaves it, stopped (the hold's stop would otherwise leave the rescue system defined).
 * The owner is told (`server.held`), with the reason and what they may still do.
 */
export async function holdServer(tx: Tx, row: ServerRow, hold: Hold, at: Date = now()): Promise<ServerRow> {
  if (row.status === "terminated") return row;
  const changes: Partial<ServerRow> = { heldReason: hold.reason, heldPausesPeriod: hold.pausesPeriod };
  // A build in progress keeps saying what it does; the hold's reason shows once it is done.
  if (row.status !== "provisioning") changes.statusReason = holdReasonText(hold.reason);
  if (!row.heldSince) {
    Object.assign(changes, {
      heldSince: at,
      heldPriorStatus: row.status,
      heldPriorPower: row.powerState,
    });
    // A server being built is held once the build is done (enforceHolds): its job must finish first.
    if (row.status === "active") {
      Object.assign(changes, { status: "suspended", suspendedAt: at, powerState: "stopped" });
    }
  }
  const [updated] = await tx.update(servers).set(changes).where(eq(servers.id, row.id)).returning();
  if (!updated) throw new Error("server update returned no row");
  let held = updated;
  if (row.status === "active" && !row.heldSince) {
    await enqueueJob(tx, row.id, "power", { action: "stop" });
    held = await endRescueWithStop(tx, updated);
  }
  await recordServerHeld(tx, held, {
    reason: hold.reason,
    pausesPeriod: hold.pausesPeriod,
    scope: hold.scope ?? "server",
  });
  return held;
}

/** The paid period after a hold ends at `at`: moved on by the time held, when the hold paused it. */
export function periodAfterHold(
  row: Pick<ServerRow, "expiresAt" | "heldSince" | "heldPausesPeriod">,
  at: Date,
) {
  if (!row.heldSince || !row.heldPausesPeriod) return row.expiresAt;
  const heldMs = Math.max(0, at.getTime() - row.heldSince.getTime());
  return new Date(row.expiresAt.getTime() + heldMs);
}

const NOT_HELD = {
  heldSince: null,
  heldReason: null,
  heldPausesPeriod: null,
  heldPriorStatus: null,
  heldPriorPower: null,
} as const;

/** Ends the locked server's hold at `at` and gives it back what it had (see above). */
export async function releaseServer(tx: Tx, row: ServerRow, at: Date = now()): Promise<ServerRow> {
  if (!row.heldSince) return row;
  const expiresAt = periodAfterHold(row, at);
  const changes: Partial<ServerRow> = { ...NOT_HELD, expiresAt };
  if (row.status !== "terminated") changes.statusReason = null;
  const wasLive = row.heldPriorStatus === "active" || row.heldPriorStatus === "provisioning";
  const resumes = row.status === "suspended" && wasLive && expiresAt > at;
  // A server built while held ran its new system when the hold caught it: it runs again.
  const runs = resumes && (row.heldPriorPower === "running" || row.heldPriorStatus === "provisioning");
  if (resumes)
    Object.assign(changes, { status: "active", suspendedAt: null, powerState: runs ? "running" : "stopped" });
  const [released] = await tx.update(servers).set(changes).where(eq(servers.id, row.id)).returning();
  if (!released) throw new Error("server update returned no row");
  if (runs) await enqueueJob(tx, row.id, "power", { action: "start" });
  await recordServerReleased(tx, released, row.heldSince, expiresAt.getTime() - row.expiresAt.getTime());
  return released;
}

/** The account's open suspension (not a single server's), or undefined. */
export async function accountSuspension(tx: Tx | Database, accountId: number) {
  const [open] = await tx
    .select()
    .from(operatorSuspensions)
    .where(
      and(
        eq(operatorSuspensions.accountId, accountId),
        isNull(operatorSuspensions.serverId),
        isNull(operatorSuspensions.liftedAt),
      ),
    );
  return open;
}

/** An order on a suspended account: 403 with the reason; nothing is charged. */
export async function refuseOrderWhileSuspended(tx: Tx, accountId: number): Promise<void> {
  const open = await accountSuspension(tx, accountId);
  if (!open) return;
  throw new ApiError(
    403,
    "account_suspended",
    `${holdReasonText(open.reason)}. No new server can be ordered until the suspension is lifted.`,
  );
}

const BATCH = 100;

/**
 * The background pass's part: holds reach every server they should. A server whose build (or return) ended
 * while it was held turned active: it is suspended again. A server of a suspended account that is not held
 * yet (a lapsed one renewed since) is held with the account's reason. Rows being changed elsewhere wait.
 */
export async function enforceHolds(database?: Database): Promise<number> {
  database ??= await db();
  const heldActive = await database
    .select({ id: servers.id, accountId: servers.accountId })
    .from(servers)
    .where(and(isNotNull(servers.heldSince), eq(servers.status, "active")))
    .limit(BATCH);
  const unheld = await database
    .select({ id: servers.id, accountId: servers.accountId })
    .from(servers)
    .innerJoin(
      operatorSuspensions,
      and(
        eq(operatorSuspensions.accountId, servers.accountId),
        isNull(operatorSuspensions.serverId),
        isNull(operatorSuspensions.liftedAt),
      ),
    )
    .where(and(isNull(servers.heldSince), inArray(servers.status, ["active", "provisioning", "suspended"])))
    .limit(BATCH);
  let changed = 0;
  for (const due of [...heldActive, ...unheld]) {
    try {
      await database.transaction(async (tx) => {
        await tx
          .select({ id: accounts.id })
          .from(accounts)
          .where(eq(accounts.id, due.accountId))
          .for("update");
        const [row] = await tx
          .select()
          .from(servers)
          .where(eq(servers.id, due.id))
          .for("update", { skipLocked: true });
        if (!row || row.status === "terminated") return;
        if (row.heldSince && row.status === "active") {
          await tx
            .update(servers)
            .set({
              status: "suspended",
              suspendedAt: now(),
              powerState: "stopped",
              statusReason: holdReasonText(row.heldReason ?? ""),
            })
            .where(eq(servers.id, row.id));
          await enqueueJob(tx, row.id, "power", { action: "stop" });
          changed++;
          return;
        }
        const open = await accountSuspension(tx, row.accountId);
        if (!row.heldSince && open) {
          await holdServer(tx, row, {
            reason: open.reason,
            pausesPeriod: open.pausesPeriod,
            scope: "account",
          });
          changed++;
        }
      });
    } catch (error) {
      console.error(`server ${due.id}: holding it failed: ${firstLine(error)}`);
    }
  }
  return changed;
}

/** SQL: the server's period runs (it is not held, or held with its period left running). */
export const periodRuns = () => sql`(${servers.heldSince} IS NULL OR ${servers.heldPausesPeriod} = false)`;
