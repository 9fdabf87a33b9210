import "server-only";
import { and, asc, eq, gt, gte, lte, or } from "drizzle-orm";
import { now } from "@/lib/clock";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { accounts, servers } from "@/lib/db/schema";
import type { Tx } from "@/lib/ledger/ledger";
import type { ServerRow } from "./present";
import { provisioner } from "./provisioner";
import { renewInTx, terminateInTx } from "./service";

const BATCH = 100;

type Due = { id: number; accountId: number };

/**
 * Runs `step` on each due server in its own transaction. Locks are taken account first, then the server
 * with SKIP LOCKED (the order every request uses): a server being changed elsewhere, by its owner or by
 * another app instance's worker, is left for the next pass. One server's failure does not stop the others.
 */
async function forEachLocked(
  due: Due[],
  stillDue: (row: ServerRow) => boolean,
  step: (tx: Tx, row: ServerRow) => Promise<void>,
): Promise<void> {
  const database = await db();
  for (const { id, accountId } of due) {
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
      console.error(`server ${id}: lifecycle step failed: ${(error as Error).message?.split("\n")[0]}`);
    }
  }
}

/** provisioning -> active once the provisioner has built the server and given it an address. */
async function finishProvisioning() {
  const database = await db();
  const due = await database
    .select({ id: servers.id, accountId: servers.accountId })
    .from(servers)
    .where(and(eq(servers.status, "provisioning"), lte(servers.provisionReadyAt, now())))
    .orderBy(asc(servers.id))
    .limit(BATCH);
  await forEachLocked(
    due,
    (row) => row.status === "provisioning",
    async (tx, row) => {
      const built = await provisioner().provision(row, tx);
      if (!built) return;
      await tx
        .update(servers)
        .set({ status: "active", ip: built.ip, powerState: "running" })
        .where(eq(servers.id, row.id));
    },
  );
}

/**
 * At expiry: renew from the balance when auto-renew is on and the balance covers the price (also bringing
 * a suspended server back), otherwise suspend. Past the grace period, a suspended server is terminated.
 * Only servers with something to do are selected, so waiting ones never crowd out due ones.
 */
async function handleExpiries() {
  const database = await db();
  const current = now();
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
    due,
    (row) => (row.status === "active" || row.status === "suspended") && row.expiresAt <= current,
    async (tx, row) => {
      if (row.autoRenew) {
        const [account] = await tx
          .select({ balanceCents: accounts.balanceCents })
          .from(accounts)
          .where(eq(accounts.id, row.accountId));
        if ((account?.balanceCents ?? 0) >= row.priceCents) {
          await renewInTx(tx, row);
          return;
        }
      }
      if (row.status === "active") {
        await provisioner().power(row, "stop");
        await tx
          .update(servers)
          .set({ status: "suspended", suspendedAt: current, powerState: "stopped" })
          .where(eq(servers.id, row.id));
      } else if (row.expiresAt.getTime() + graceMs <= current.getTime()) {
        await terminateInTx(tx, row);
      }
    },
  );
}

/** One pass of the server lifecycle; called by the background runner. */
export async function runServerLifecycle(): Promise<void> {
  await finishProvisioning();
  await handleExpiries();
}
