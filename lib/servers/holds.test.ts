import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Tx } from "@/lib/db/client";
import { operatorSuspensions, serverJobs, servers } from "@/lib/db/schema";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  insertOperatorRow,
  insertServer,
  openMemoryDatabase,
  PUP_ORDER,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { renewalStart, renewInTx } from "./billing";
import { addCycle } from "./cycle";
import { enforceHolds, holdServer, periodAfterHold, releaseServer } from "./holds";
import { runServerLifecycle } from "./lifecycle";
import { orderServer } from "./order";
import { presentServer } from "./present";

const restoreEnv = scratchConfigEnv({ SERVER_GRACE_DAYS: "7", EXPIRED_SERVER_RETENTION_DAYS: "0" });

const DAY = 86_400_000;
const EXPIRY = new Date("2026-05-01T00:00:00Z");
const at = (ms: number) => new Date(EXPIRY.getTime() + ms);
const ABUSE = { reason: "Outgoing SSH scans reported by AS64500", pausesPeriod: true };

describe("an operator's hold on a server", () => {
  let db: Database;
  let close: () => Promise<void>;
  let operatorId: number;
  beforeAll(async () => {
    ({ db, close } = await openMemoryDatabase());
    operatorId = await insertOperatorRow(db, "ops");
  }, 120_000);
  afterAll(async () => {
    await close();
    restoreEnv();
  });

  const row = async (id: number) => (await db.select().from(servers).where(eq(servers.id, id)))[0];
  const jobs = async (id: number) =>
    db
      .select({ kind: serverJobs.kind, action: serverJobs.action })
      .from(serverJobs)
      .where(eq(serverJobs.serverId, id))
      .orderBy(asc(serverJobs.id));

  async function activeServer(balanceCents = 0, autoRenew = false) {
    const accountId = await createFundedAccount(db, Math.max(balanceCents, 1));
    const server = await insertServer(db, accountId, {
      status: "active",
      powerState: "running",
      expiresAt: EXPIRY,
      autoRenew,
    });
    return { accountId, server };
  }

  // PGlite has one connection: inside a transaction every read goes through it.
  const locked = async (tx: Tx, id: number) => {
    const [found] = await tx.select().from(servers).where(eq(servers.id, id)).for("update");
    if (!found) throw new Error(`no server ${id}`);
    return found;
  };
  const hold = (id: number, when: Date, options = ABUSE) =>
    db.transaction(async (tx) => holdServer(tx, await locked(tx, id), options, when));
  const release = (id: number, when: Date) =>
    db.transaction(async (tx) => releaseServer(tx, await locked(tx, id), when));

  it("suspends and stops it with the reason its owner reads; the period waits, and lifting gives it all back", async () => {
    const { server } = await activeServer();
    const heldAt = at(-10 * DAY);
    const held = await hold(server.id, heldAt);
    expect(held).toMatchObject({
      status: "suspended",
      powerState: "stopped",
      statusReason: "Suspended by the operator: Outgoing SSH scans reported by AS64500",
      heldPriorStatus: "active",
      heldPriorPower: "running",
    });
    expect(await jobs(server.id)).toEqual([{ kind: "power", action: "stop" }]);
    // Paused: no date at which it runs out is shown.
    expect(presentServer(held, 7).terminates_at).toBeNull();

    // Long past its expiry and the grace period: the lifecycle leaves it alone.
    await runServerLifecycle(db, () => at(30 * DAY));
    expect(await row(server.id)).toMatchObject({ status: "suspended", terminatedAt: null });

    // Lifted 40 days after it was held: its 10 remaining days remain.
    const liftedAt = at(30 * DAY);
    const lifted = await release(server.id, liftedAt);
    expect(lifted).toMatchObject({
      status: "active",
      powerState: "running",
      statusReason: null,
      heldSince: null,
    });
    expect(lifted.expiresAt.getTime() - liftedAt.getTime()).toBe(10 * DAY);
    expect(await jobs(server.id)).toEqual([
      { kind: "power", action: "stop" },
      { kind: "power", action: "start" },
    ]);
  });

  it("with the period left running, lapses and reaches termination like any other", async () => {
    const { server } = await activeServer();
    await hold(server.id, at(-DAY), { ...ABUSE, pausesPeriod: false });
    const held = await row(server.id);
    if (!held) throw new Error("the server vanished");
    expect(presentServer(held, 7).terminates_at).toBe(new Date(EXPIRY.getTime() + 7 * DAY).toISOString());
    await runServerLifecycle(db, () => at(8 * DAY));
    expect(await row(server.id)).toMatchObject({ status: "terminated" });
  });

  it("lifted after its period ran out, stays suspended for the lapsed period, its grace not lost to the hold", async () => {
    const { server } = await activeServer();
    await hold(server.id, at(-DAY), { ...ABUSE, pausesPeriod: false });
    const lifted = await release(server.id, at(2 * DAY));
    expect(lifted).toMatchObject({ status: "suspended", statusReason: null, heldSince: null });
    expect(lifted.expiresAt).toEqual(EXPIRY);
    expect(
      periodAfterHold({ expiresAt: EXPIRY, heldSince: at(-DAY), heldPausesPeriod: true }, at(2 * DAY)),
    ).toEqual(at(3 * DAY));
  });

  it("does not auto-renew while paused; a renewal during the hold pays the period but keeps it suspended", async () => {
    const { accountId, server } = await activeServer(5000, true);
    await hold(server.id, at(-DAY));
    await runServerLifecycle(db, () => at(DAY));
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 5000, ledgerSum: 5000 });
    const renewed = await db.transaction(async (tx) =>
      renewInTx(tx, await locked(tx, server.id), null, at(DAY)),
    );
    expect(renewed.status).toBe("suspended");
    expect(renewed.expiresAt > EXPIRY).toBe(true);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 4600, ledgerSum: 4600 });
    expect((await jobs(server.id)).filter((job) => job.action === "start")).toEqual([]);
  });

  it("renewed while held with its period paused, after its stored expiry: extended from that expiry, not from now (worked example)", async () => {
    // Expiry E = 1 May; held 10 days before it (H = 21 April); renewed by hand 5 days past it (R = 6 May, the
    // period still paused); lifted 20 days past it (L = 21 May). Used so far: 10 days before the hold. Owed:
    // the 10 unused days of the old period plus one paid month, from L: E + 1 month + (L - H) = 1 June + 30
    // days = 1 July. Extending from R instead would give 6 June + 30 days = 6 July: R - E = 5 days for nothing.
    const { accountId, server } = await activeServer(5000);
    const heldAt = at(-10 * DAY);
    const renewedAt = at(5 * DAY);
    const liftedAt = at(20 * DAY);
    await hold(server.id, heldAt);
    const renewed = await db.transaction(async (tx) =>
      renewInTx(tx, await locked(tx, server.id), null, renewedAt),
    );
    expect(renewed).toMatchObject({ status: "suspended", expiresAt: new Date("2026-06-01T00:00:00Z") });
    const lifted = await release(server.id, liftedAt);
    expect(lifted.expiresAt).toEqual(new Date("2026-07-01T00:00:00Z"));
    expect(lifted.expiresAt).toEqual(new Date(addCycle(EXPIRY, "monthly").getTime() + 30 * DAY));
    // The paid month and the 10 days held over: from the lift, what is left is exactly that.
    expect(lifted.expiresAt.getTime() - liftedAt.getTime()).toBe(
      addCycle(EXPIRY, "monthly").getTime() - EXPIRY.getTime() + 10 * DAY,
    );
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 4600, ledgerSum: 4600 });
  });

  it("where a renewal's period starts: the stored expiry while held and paused, else the later of expiry and now", () => {
    const base = { expiresAt: EXPIRY, heldSince: null, heldPausesPeriod: null };
    expect(renewalStart(base, at(-DAY))).toEqual(EXPIRY);
    // A lapsed server's time off is not billed.
    expect(renewalStart(base, at(3 * DAY))).toEqual(at(3 * DAY));
    expect(renewalStart({ ...base, heldSince: at(-DAY), heldPausesPeriod: true }, at(3 * DAY))).toEqual(
      EXPIRY,
    );
    // Held with its period left running, it lapses as any other.
    expect(renewalStart({ ...base, heldSince: at(-DAY), heldPausesPeriod: false }, at(3 * DAY))).toEqual(
      at(3 * DAY),
    );
  });

  it("takes a server out of rescue mode when a hold or a lapse stops it: stopped first, then redefined on its own disk", async () => {
    const inRescue = async (rescueState: "active" | "entering") => {
      const { server } = await activeServer();
      await db
        .update(servers)
        .set({ rescueState, rescueSince: at(-2 * DAY) })
        .where(eq(servers.id, server.id));
      return server;
    };
    const rescued = await inRescue("active");
    const held = await hold(rescued.id, at(-DAY));
    expect(held).toMatchObject({ status: "suspended", powerState: "stopped", rescueState: "leaving" });
    expect(await jobs(rescued.id)).toEqual([
      { kind: "power", action: "stop" },
      { kind: "leave_rescue", action: null },
    ]);
    // Still starting: called off (its job then finds nothing to do), no job to leave it.
    const starting = await inRescue("entering");
    expect(await hold(starting.id, at(-DAY))).toMatchObject({ rescueState: null, rescuePasswordEnc: null });
    expect(await jobs(starting.id)).toEqual([{ kind: "power", action: "stop" }]);

    // A lapse at expiry does the same.
    const lapsing = await inRescue("active");
    await runServerLifecycle(db, () => at(DAY));
    expect(await row(lapsing.id)).toMatchObject({ status: "suspended", rescueState: "leaving" });
    expect(await jobs(lapsing.id)).toEqual([
      { kind: "power", action: "stop" },
      { kind: "leave_rescue", action: null },
    ]);
  });

  it("catches a server whose build ends while held, and every server of a suspended account", async () => {
    const accountId = await createFundedAccount(db, 1);
    const building = await insertServer(db, accountId, { status: "provisioning", expiresAt: EXPIRY });
    await hold(building.id, at(-DAY));
    expect(await row(building.id)).toMatchObject({ status: "provisioning", heldPriorStatus: "provisioning" });
    // The build finishes: the job marks it active, as it does for any server.
    await db
      .update(servers)
      .set({ status: "active", powerState: "running" })
      .where(eq(servers.id, building.id));
    const other = await insertServer(db, accountId, {
      status: "active",
      powerState: "running",
      expiresAt: EXPIRY,
    });
    await db.insert(operatorSuspensions).values({
      accountId,
      reason: "Phishing pages",
      pausesPeriod: true,
      createdBy: operatorId,
    });
    expect(await enforceHolds(db)).toBeGreaterThanOrEqual(2);
    expect(await row(building.id)).toMatchObject({
      status: "suspended",
      powerState: "stopped",
      statusReason: "Suspended by the operator: Outgoing SSH scans reported by AS64500",
    });
    expect(await row(other.id)).toMatchObject({
      status: "suspended",
      statusReason: "Suspended by the operator: Phishing pages",
    });
    expect(await enforceHolds(db)).toBe(0);

    // Ordering on the suspended account is refused before anything is charged.
    await expect(orderServer({ accountId, apiKeyId: null }, PUP_ORDER, undefined, db)).rejects.toMatchObject({
      status: 403,
      code: "account_suspended",
    });
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 1, ledgerSum: 1 });
  });
});
