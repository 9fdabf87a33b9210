import "server-only";
import { setImmediate } from "node:timers/promises";
import { and, asc, eq, gt, gte, inArray, isNotNull, lte, or } from "drizzle-orm";
import { pace } from "@/lib/background/pace";
import { now } from "@/lib/clock";
import { config } from "@/lib/config/env";
import { type Database, db } from "@/lib/db/client";
import { accounts, servers } from "@/lib/db/schema";
import type { Tx } from "@/lib/ledger/ledger";
import { firstLine } from "@/lib/log";
import { enqueueJob, runDueJobs, unfinishedJobServers } from "./jobs";
import type { ServerRow } from "./present";
import { provisioner } from "./provisioner";
import { renewInTx, terminateInTx } from "./service";

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
  const graceMs = config().servers.graceDays * 86_400_000;
  const graceStart = new Date(current.getTime() - graceMs);
  const due = await database
    .select({ id: servers.id, accountId: servers.accountId })
    .from(servers)
    .innerJoin(accounts, eq(accounts.id, servers.accountId))
    .where(
      or(
        and(eq(servers.status, "active"), lte(servers.expiresAt, current)),
        and(eq(servers.status, "suspended"), lte(servers.expiresAt, graceStart)),
        and(
          eq(servers.status, "suspended"),
          eq(servers.autoRenew, true),
          gte(accounts.balanceCents, servers.priceCents),
          gt(servers.expiresAt, graceStart),
        ),
      ),
    )
    .orderBy(asc(servers.expiresAt))
    .limit(BATCH);
  await forEachLocked(
    database,
    rest,
    due,
    (row) => (row.status === "active" || row.status === "suspended") && row.expiresAt <= current,
    async (tx, row) => {
      if (row.autoRenew) {
        const [account] = await tx
          .select({ balanceCents: accounts.balanceCents })
          .from(accounts)
          .where(eq(accounts.id, row.accountId));
        if ((account?.balanceCents ?? 0) >= row.priceCents) {
          await renewInTx(tx, row, clock());
          return;
        }
      }
      if (row.status === "active") {
        await tx
          .update(servers)
          .set({ status: "suspended", suspendedAt: current, powerState: "stopped" })
          .where(eq(servers.id, row.id));
        await enqueueJob(tx, row.id, "power", { action: "stop" });
      } else if (row.expiresAt.getTime() + graceMs <= current.getTime()) {
        await terminateInTx(tx, row, clock());
      }
    },
  );
}

/**
 * Power state comes from the hosts: each pass reads the domains of every hypervisor and writes what it
 * finds. A domain that vanished is reported on the server and, if the server should run, started again
 * (its definition is recreated on its disk). Servers with host work in flight are left alone.
 */
async function reconcileWithHosts() {
  if (provisioner().simulated) return;
  const database = await db();
  for (const host of config().servers.hypervisors) {
    let states: Awaited<ReturnType<ReturnType<typeof provisioner>["hostStates"]>>;
    try {
      states = await provisioner().hostStates(host.name);
    } catch (error) {
      console.error(`hypervisor ${host.name}: ${firstLine(error)}`);
      continue;
    }
    if (!states) continue;
    const rows = await database
      .select()
      .from(servers)
      .where(
        and(
          eq(servers.hypervisor, host.name),
          inArray(servers.status, ["active", "suspended"]),
          isNotNull(servers.powerState),
        ),
      );
    const busy = await unfinishedJobServers(rows.map((row) => row.id));
    for (const row of rows) {
      if (busy.has(row.id)) continue;
      await pace();
      const state = states.get(row.id);
      if (state === row.powerState) continue;
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
          await tx.update(servers).set({ powerState: state }).where(eq(servers.id, row.id));
          return;
        }
        const shouldRun = locked.status === "active" && locked.powerState === "running";
        await tx
          .update(servers)
          .set({
            statusReason: `${MISSING} ${host.name} at ${now().toISOString()}${shouldRun ? "; it was started again" : ""}.`,
            ...(shouldRun ? {} : { powerState: "stopped" }),
          })
          .where(eq(servers.id, row.id));
        if (shouldRun) await enqueueJob(tx, row.id, "power", { action: "start" });
      });
    }
  }
}

/**
 * One pass of the server lifecycle; called by the background runner. `database` and `clock` default to the
 * process ones; the job worker and host reconciliation serve the process database only, so with another
 * database passed the pass handles expiries alone.
 */
export async function runServerLifecycle(database?: Database, clock: () => Date = now): Promise<void> {
  // The process pace rests by the process database's kind; another database only needs a turn between rows.
  await handleExpiries(database ?? (await db()), clock, database === undefined ? pace : () => setImmediate());
  if (database !== undefined) return;
  await runDueJobs();
  try {
    await reconcileWithHosts();
  } catch (error) {
    console.error(`host reconciliation: ${firstLine(error)}`);
  }
}
