import { and, asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { ledgerEntries, serverJobs, servers, snapshots } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  insertServer,
  openMemoryDatabase,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { endFailedRevival, reviveInTx } from "./billing";
import { runServerLifecycle } from "./lifecycle";
import { completeRevival, recordKeptDisk } from "./retention";

// A 7-day grace period, then the last disk is kept for 14 days.
const restoreEnv = scratchConfigEnv({ SERVER_GRACE_DAYS: "7", EXPIRED_SERVER_RETENTION_DAYS: "14" });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PRICE = 400;
const SEALED = "sealed-root-password";

describe("a lapsed server's last disk, kept for the retention period, directly against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeEach(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterEach(async () => close());
  afterAll(() => restoreEnv());

  /** A suspended server whose grace period ended `since` ago (its expiry 7 days before that). */
  async function lapsedServer(balanceCents: number, graceEnded: Date) {
    const accountId = await createFundedAccount(db, balanceCents);
    const expiresAt = new Date(graceEnded.getTime() - 7 * DAY);
    const row = await insertServer(db, accountId, {
      priceCents: PRICE,
      status: "suspended",
      powerState: "stopped",
      suspendedAt: expiresAt,
      expiresAt,
      diskGb: 20,
      ip: "10.20.0.7",
      sshPort: 22,
      rootPasswordEnc: SEALED,
    });
    return { accountId, serverId: row.id };
  }

  async function state(accountId: number, serverId: number) {
    const [server] = await db.select().from(servers).where(eq(servers.id, serverId));
    const kept = await db
      .select({ kind: snapshots.kind, state: snapshots.state, reservedGb: snapshots.reservedGb })
      .from(snapshots)
      .where(eq(snapshots.serverId, serverId));
    const jobs = await db
      .select({ id: serverJobs.id, kind: serverJobs.kind, state: serverJobs.state })
      .from(serverJobs)
      .where(eq(serverJobs.serverId, serverId))
      .orderBy(asc(serverJobs.id));
    const ledger = await db
      .select({
        amount: ledgerEntries.amountCents,
        kind: ledgerEntries.kind,
        reference: ledgerEntries.reference,
      })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.accountId, accountId))
      .orderBy(asc(ledgerEntries.id));
    return { server, kept, jobs, ledger, money: await balanceAndLedgerSum(db, accountId) };
  }

  /** What the destroy job does for a lapsed server: the machine goes, its disk is kept and measured. */
  async function destroyKeepingDisk(serverId: number, keptBytes: number) {
    await db.transaction(async (tx) => {
      const [row] = await tx.select().from(servers).where(eq(servers.id, serverId));
      if (!row) throw new Error("no server");
      await recordKeptDisk(tx, row, keptBytes);
      await tx
        .update(serverJobs)
        .set({ state: "done" })
        .where(and(eq(serverJobs.serverId, serverId), eq(serverJobs.kind, "destroy")));
    });
  }

  it("terminates keeping the disk and the sealed password until the retention ends, then deletes both", async () => {
    const graceEnded = new Date("2026-03-08T00:00:00Z");
    const { accountId, serverId } = await lapsedServer(PRICE - 1, graceEnded);
    const pass = () => new Date(graceEnded.getTime() + HOUR);
    await runServerLifecycle(db, pass);
    const ended = await state(accountId, serverId);
    expect(ended.server).toMatchObject({ status: "terminated", rootPasswordEnc: SEALED });
    expect(ended.server?.retainedUntil?.toISOString()).toBe(
      new Date(pass().getTime() + 14 * DAY).toISOString(),
    );
    // Listed as a snapshot at once, holding the disk's size on its host until the destroy job measures it.
    expect(ended.kept).toEqual([{ kind: "expiry", state: "creating", reservedGb: 20 }]);
    expect(ended.jobs.map((job) => job.kind)).toEqual(["destroy"]);
    expect(ended.ledger.map((entry) => entry.kind)).toEqual(["topup"]);
    expect(ended.money).toEqual({ balance: PRICE - 1, ledgerSum: PRICE - 1 });

    // The same pass again changes nothing; nor does one a day before the retention ends.
    await runServerLifecycle(db, pass);
    expect(await state(accountId, serverId)).toEqual(ended);
    await runServerLifecycle(db, () => new Date(pass().getTime() + 13 * DAY));
    expect(await state(accountId, serverId)).toEqual(ended);

    const end = () => new Date(pass().getTime() + 14 * DAY + HOUR);
    await runServerLifecycle(db, end);
    const purged = await state(accountId, serverId);
    expect(purged.server).toMatchObject({ status: "terminated", retainedUntil: null, rootPasswordEnc: null });
    expect(purged.server?.statusReason).toBe(
      "Its last disk was deleted at the end of its retention (2026-03-22).",
    );
    expect(purged.kept).toEqual([{ kind: "expiry", state: "deleting", reservedGb: 20 }]);
    // A second destroy job, which finds no retention left and deletes the disk and every snapshot.
    expect(purged.jobs.map((job) => job.kind)).toEqual(["destroy", "destroy"]);
    expect(purged.money).toEqual({ balance: PRICE - 1, ledgerSum: PRICE - 1 });
    await runServerLifecycle(db, end);
    expect(await state(accountId, serverId)).toEqual(purged);
  });

  it("a renewal inside the retention charges through the ledger, a failed return refunds it, and a second try charges anew", async () => {
    const graceEnded = new Date(Date.now() - DAY);
    const { accountId, serverId } = await lapsedServer(3 * PRICE, graceEnded);
    await runServerLifecycle(db, () => graceEnded);
    await destroyKeepingDisk(serverId, 123_456_789);
    const lapsed = await state(accountId, serverId);
    expect(lapsed.kept).toEqual([{ kind: "expiry", state: "available", reservedGb: 0 }]);
    expect(lapsed.money).toEqual({ balance: 3 * PRICE, ledgerSum: 3 * PRICE });

    const renew = () =>
      db.transaction(async (tx) => {
        const [row] = await tx.select().from(servers).where(eq(servers.id, serverId)).for("update");
        if (!row) throw new Error("no server");
        return reviveInTx(tx, row, null);
      });
    const back = await renew();
    expect(back).toMatchObject({ status: "provisioning", powerState: null, rootPasswordEnc: SEALED });
    const charged = await state(accountId, serverId);
    const revive = charged.jobs.find((job) => job.kind === "revive" && job.state === "pending");
    if (!revive) throw new Error("no revive job queued");
    expect(charged.ledger.at(-1)).toEqual({
      amount: -PRICE,
      kind: "renewal",
      reference: `renewal:server:${serverId}:revival:${revive.id}`,
    });
    expect(charged.money).toEqual({ balance: 2 * PRICE, ledgerSum: 2 * PRICE });
    // Still in its retention until it runs: the disk stays a kept snapshot meanwhile.
    expect(charged.kept).toEqual([{ kind: "expiry", state: "available", reservedGb: 0 }]);

    // The return fails for good: refunded, terminated again with the disk kept, and a destroy job queued.
    await db.transaction(async (tx) => {
      const [job] = await tx.select().from(serverJobs).where(eq(serverJobs.id, revive.id));
      if (!job) throw new Error("no job");
      await tx.update(serverJobs).set({ state: "failed" }).where(eq(serverJobs.id, revive.id));
      await endFailedRevival(tx, { ...job, attempts: 3 }, "the host could not be reached");
    });
    const refunded = await state(accountId, serverId);
    expect(refunded.ledger.at(-1)).toEqual({
      amount: PRICE,
      kind: "refund",
      reference: `refund:server:${serverId}:revival:${revive.id}`,
    });
    expect(refunded.money).toEqual({ balance: 3 * PRICE, ledgerSum: 3 * PRICE });
    expect(refunded.server).toMatchObject({ status: "terminated", rootPasswordEnc: SEALED });
    expect(refunded.server?.retainedUntil).toEqual(lapsed.server?.retainedUntil);
    expect(refunded.server?.statusReason).toMatch(
      /^Bringing the server back failed after 3 attempts \(the host could not be reached\); the renewal was refunded\. Its disk is kept until \d{4}-\d\d-\d\d\.$/,
    );
    expect(refunded.jobs.at(-1)).toMatchObject({ kind: "destroy", state: "pending" });

    // Busy while that destroy job runs; once it has, a second renewal charges again under its own reference.
    await expect(renew()).rejects.toMatchObject({ status: 409, code: "server_busy" });
    expect((await state(accountId, serverId)).money).toEqual({ balance: 3 * PRICE, ledgerSum: 3 * PRICE });
    await destroyKeepingDisk(serverId, 123_456_789);
    await renew();
    const again = await state(accountId, serverId);
    expect(again.ledger.filter((entry) => entry.kind === "renewal")).toHaveLength(2);
    expect(again.money).toEqual({ balance: 2 * PRICE, ledgerSum: 2 * PRICE });

    // The machine answers: the server is back with a period from now, and its disk is no snapshot any more.
    const changes = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(servers).where(eq(servers.id, serverId));
      if (!row) throw new Error("no server");
      return completeRevival(tx, row);
    });
    expect(changes).toMatchObject({ terminatedAt: null, retainedUntil: null, lastIp: null });
    expect(changes.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 27 * DAY);
    expect((await state(accountId, serverId)).kept).toEqual([]);
  });

  it("refuses a renewal once the disk is gone, or with the balance short, charging nothing", async () => {
    const graceEnded = new Date(Date.now() - DAY);
    const { accountId, serverId } = await lapsedServer(PRICE - 1, graceEnded);
    await runServerLifecycle(db, () => graceEnded);
    await destroyKeepingDisk(serverId, 1);
    const renew = () =>
      db.transaction(async (tx) => {
        const [row] = await tx.select().from(servers).where(eq(servers.id, serverId)).for("update");
        if (!row) throw new Error("no server");
        return reviveInTx(tx, row, null);
      });
    await expect(renew()).rejects.toMatchObject({ status: 402, code: "insufficient_balance" });
    await db.update(snapshots).set({ state: "deleting" }).where(eq(snapshots.serverId, serverId));
    await db.update(servers).set({ retainedUntil: null }).where(eq(servers.id, serverId));
    const accountBefore = await state(accountId, serverId);
    await db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: PRICE,
        kind: "topup",
        reference: `topup:more:${accountId}`,
        apiKeyId: null,
      }),
    );
    await expect(renew()).rejects.toMatchObject({ status: 409, code: "server_terminated" });
    const after = await state(accountId, serverId);
    expect(after.ledger.filter((entry) => entry.kind === "renewal")).toEqual([]);
    expect(after.money).toEqual({ balance: 2 * PRICE - 1, ledgerSum: 2 * PRICE - 1 });
    expect(after.server?.status).toBe(accountBefore.server?.status);
  });
});
