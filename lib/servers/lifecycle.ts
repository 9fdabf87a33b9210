import "server-only";
import { setImmediate } from "node:timers/promises";
import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lte, or } from "drizzle-orm";
import { type Database, db, type Tx } from "@/lib/db/client";
import { pace } from "@/lib/db/pace";
import { accounts, serverJobs, servers, snapshots } from "@/lib/db/schema";
import { recordServerSuspended } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { renewInTx, terminateInTx } from "./billing";
import { serverSettings } from "./config";
import { enforceHolds, periodRuns } from "./holds";
import { recordHostReading } from "./host-readings";
import { enqueueJob, runDueJobs, unfinishedJobServers } from "./jobs";
import { reconcileFirewalls } from "./network/reconcile";
import type { ServerRow } from "./present";
import { type PowerState, provisioner } from "./provisioner";
import { endRescueWithStop } from "./rescue";
import { runSnapshotSchedules } from "./snapshots/schedule";

const BATCH = 100;
const MISSING = "The machine was missing from host";

type Due = { id: number; accountId: number };

/**
 * Runs `step` on each due server in its own transaction. Locks are taken account first, then the server
 * with SKIP LOCKED (the order every request uses): a server being changed elsewhere, by its owner or by
 * another app instance's worker, is left for the next pass. One server's failure does not stop the others.
 */
async function forEachLocked(
  database: Database,
  rest: () => Promise<unknown>,
  due: Due[],
  stillDue: (row: ServerRow) => boolean,
  step: (tx: Tx, row: ServerRow) => Promise<void>,
): Promise<void> {
  for (const { id, accountId } of due) {
    await rest();
    try {
      await database.transaction(async (tx) => {
        await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
        const [row] = await tx
          .select()
          .from(servers)
          .where(eq(servers.id, id))
          .for("update", { skipLocked: true });
        if (row && stillDue(row)) await step(tx, row);
      });
    } catch (error) {
      console.error(`server ${id}: lifecycle step failed: ${firstLine(error)}`);
    }
  }
}

/**
 * At expiry: renew from the balance when auto-renew is on and the balance covers the price (also bringing
 * a suspended server back), otherwise suspend (a stop job). Past the grace period, a suspended server is
 * terminated. Only servers with something to do are selected, so waiting ones never crowd out due ones.
 */
async function handleExpiries(database: Database, clock: () => Date, rest: () => Promise<unknown>) {
  const current = clock();
  const graceMs = serverSettings().graceDays * 86_400_000;
  const graceStart = new Date(current.getTime() - graceMs);
  const due = await database
    .select({ id: servers.id, accountId: servers.accountId })
    .from(servers)
    .innerJoin(accounts, eq(accounts.id, servers.accountId))
    .where(
      and(
        // A server held by the operator with its period paused does not lapse meanwhile (holds.ts).
        periodRuns(),
        or(
          and(eq(servers.status, "active"), lte(servers.expiresAt, current)),
          and(eq(servers.status, "suspended"), lte(servers.expiresAt, graceStart)),
          and(
            eq(servers.status, "suspended"),
            eq(servers.autoRenew, true),
            gte(accounts.balanceCents, servers.priceCents),
            gt(servers.expiresAt, graceStart),
            // A held server is suspended before its expiry: it renews at its expiry, not before.
            or(isNull(servers.heldSince), lte(servers.expiresAt, current)),
          ),
        ),
      ),
    )
    .orderBy(asc(servers.expiresAt))
    .limit(BATCH);
  await forEachLocked(
    database,
    rest,
    due,
    (row) =>
      (row.status === "active" || row.status === "suspended") &&
      row.expiresAt <= current &&
      !(row.heldSince && row.heldPausesPeriod),
    async (tx, row) => {
      if (row.autoRenew) {
        const [account] = await tx
          .select({ balanceCents: accounts.balanceCents })
          .from(accounts)
          .where(eq(accounts.id, row.accountId));
        if ((account?.balanceCents ?? 0) >= row.priceCents) {
          // Automatic renewal is the account's own: no key's spend cap counts it.
          await renewInTx(tx, row, null, clock());
          return;
        }
      }
      if (row.status === "active") {
        const [suspended] = await tx
          .update(servers)
          .set({ status: "suspended", suspendedAt: current, powerState: "stopped" })
          .where(eq(servers.id, row.id))
          .returning();
        await enqueueJob(tx, row.id, "power", { action: "stop" });
        // Out of rescue mode too: a renewal starts its own system, and its owner cannot boot it meanwhile.
        await endRescueWithStop(tx, suspended ?? row);
        await recordServerSuspended(tx, row.id, new Date(row.expiresAt.getTime() + graceMs));
      } else if (row.expiresAt.getTime() + graceMs <= current.getTime()) {
        await terminateInTx(tx, row, clock(), { keepLastDisk: true });
      }
    },
  );
}

/**
 * At the end of a lapsed server's retention its kept disk, seed and snapshots are deleted (a destroy job,
 * which sees no retention left) and its sealed root password dropped: it can no longer come back.
 */
async function handleRetentionEnds(database: Database, clock: () => Date, rest: () => Promise<unknown>) {
  const current = clock();
  const due = await database
    .select({ id: servers.id, accountId: servers.accountId })
    .from(servers)
    .where(and(eq(servers.status, "terminated"), lte(servers.retainedUntil, current)))
    .orderBy(asc(servers.retainedUntil))
    .limit(BATCH);
  await forEachLocked(
    database,
    rest,
    due,
    (row) => row.status === "terminated" && row.retainedUntil !== null && row.retainedUntil <= current,
    async (tx, row) => {
      await tx
        .update(servers)
        .set({
          retainedUntil: null,
          rootPasswordEnc: null,
          statusReason: `Its last disk was deleted at the end of its retention (${current.toISOString().slice(0, 10)}).`,
        })
        .where(eq(servers.id, row.id));
      await tx.update(snapshots).set({ state: "deleting" }).where(eq(snapshots.serverId, row.id));
      await enqueueJob(tx, row.id, "destroy");
    },
  );
}

/** After a stop of a suspended server failed for good, reconciliation tries again no sooner than this. */
const STOP_RETRY_MS = 5 * 60_000;

/** Whether the server's last power job was a stop that failed for good less than STOP_RETRY_MS ago. */
async function stopFailedRecently(tx: Tx, serverId: number, current: Date): Promise<boolean> {
  const [last] = await tx
    .select({ action: serverJobs.action, state: serverJobs.state, finishedAt: serverJobs.finishedAt })
    .from(serverJobs)
    .where(and(eq(serverJobs.serverId, serverId), eq(serverJobs.kind, "power")))
    .orderBy(desc(serverJobs.id))
    .limit(1);
  return (
    last?.action === "stop" &&
    last.state === "failed" &&
    (last.finishedAt?.getTime() ?? 0) > current.getTime() - STOP_RETRY_MS
  );
}

/**
 * Brings one host's report into the database: each server's power state as the host saw it. A domain that
 * vanished is reported on the server and, if the server should run, started again (its definition is
 * recreated on its disk). A suspended server found running (its stop failed for good) is stopped again.
 * Servers with host work in flight are left alone.
 */
export async function reconcileHost(
  database: Database,
  hostName: string,
  states: Map<number, PowerState>,
  clock: () => Date = now,
  rest: () => Promise<unknown> = pace,
): Promise<void> {
  const rows = await database
    .select()
    .from(servers)
    .where(
      and(
        eq(servers.hypervisor, hostName),
        inArray(servers.status, ["active", "suspended"]),
        isNotNull(servers.powerState),
      ),
    );
  const busy = await unfinishedJobServers(
    rows.map((row) => row.id),
    database,
  );
  for (const row of rows) {
    if (busy.has(row.id)) continue;
    await rest();
    const state = states.get(row.id);
    // A suspended machine must be off: found running, it is stopped again, however it was recorded.
    const strayRunning = row.status === "suspended" && state === "running";
    if (state === row.powerState && !strayRunning) continue;
    // Already reported missing and not meant to run: nothing new to say.
    if (!state && row.powerState === "stopped" && row.statusReason?.startsWith(MISSING)) continue;
    await database.transaction(async (tx) => {
      const [locked] = await tx
        .select()
        .from(servers)
        .where(eq(servers.id, row.id))
        .for("update", { skipLocked: true });
      if (!locked || locked.powerState !== row.powerState || locked.status !== row.status) return;
      if (state) {
        if (state !== locked.powerState) {
          await tx.update(servers).set({ powerState: state }).where(eq(servers.id, row.id));
        }
        if (strayRunning && !(await stopFailedRecently(tx, row.id, clock()))) {
          await enqueueJob(tx, row.id, "power", { action: "stop" });
        }
        return;
      }
      const shouldRun = locked.status === "active" && locked.powerState === "running";
      await tx
        .update(servers)
        .set({
          statusReason: `${MISSING} ${hostName} at ${clock().toISOString()}${shouldRun ? "; it was started again" : ""}.`,
          ...(shouldRun ? {} : { powerState: "stopped" }),
        })
        .where(eq(servers.id, row.id));
      if (shouldRun) await enqueueJob(tx, row.id, "power", { action: "start" });
    });
  }
}

/** Power state comes from the hosts: each pass reads the domains of every hypervisor (see reconcileHost). */
async function reconcileWithHosts() {
  if (provisioner().simulated) return;
  const database = await db();
  for (const host of serverSettings().hypervisors) {
    let states: Map<number, PowerState> | undefined;
    try {
      states = await provisioner().hostStates(host.name);
    } catch (error) {
      console.error(`hypervisor ${host.name}: ${firstLine(error)}`);
      await recordHostReading(host, false);
      continue;
    }
    await recordHostReading(host, true);
    if (states) await reconcileHost(database, host.name, states);
    await reconcileFirewalls(host.name, database);
  }
}

/**
 * One pass of the server lifecycle; called by the background runner. `database` and `clock` default to the
 * process ones; the job worker and host reconciliation serve the process database only, so with another
 * database passed the pass handles expiries alone.
 */
export async function runServerLifecycle(database?: Database, clock: () => Date = now): Promise<void> {
  // The process pace rests by the process database's kind; another database only needs a turn between rows.
  const rest = database === undefined ? pace : () => setImmediate();
  await handleExpiries(database ?? (await db()), clock, rest);
  await handleRetentionEnds(database ?? (await db()), clock, rest);
  await enforceHolds(database);
  if (database !== undefined) return;
  try {
    await runSnapshotSchedules(clock);
  } catch (error) {
    console.error(`snapshot schedules: ${firstLine(error)}`);
  }
  await runDueJobs();
  try {
    await reconcileWithHosts();
  } catch (error) {
    console.error(`host reconciliation: ${firstLine(error)}`);
  }
}
