import { asc, eq, inArray } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/client";
import { ledgerEntries, serverJobs, servers } from "@/lib/db/schema";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  insertServer,
  openMemoryDatabase,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { reconcileHost, runServerLifecycle } from "./lifecycle";

// config() is read on first use: demo secrets go to a scratch DATA_DIR; the grace period is 7 days.
const restoreEnv = scratchConfigEnv({ SERVER_GRACE_DAYS: "7" });

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PRICE = 400;
const EXPIRY = new Date("2026-03-01T00:00:00Z");
const at = (ms: number) => () => new Date(EXPIRY.getTime() + ms);

describe("the lifecycle pass, directly against the real schema with the clock moved", () => {
  let db: Database;
  let close: () => Promise<void>;
  // A database of its own per test: a pass looks at every server, not one account's.
  beforeEach(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterEach(async () => close());
  afterAll(() => restoreEnv());

  async function serverWith(options: {
    balanceCents: number;
    autoRenew: boolean;
    status?: "active" | "suspended";
    expiresAt?: Date;
  }) {
    const accountId = await createFundedAccount(db, options.balanceCents);
    const row = await insertServer(db, accountId, {
      priceCents: PRICE,
      autoRenew: options.autoRenew,
      status: options.status ?? "active",
      powerState: options.status === "suspended" ? "stopped" : "running",
      suspendedAt: options.status === "suspended" ? (options.expiresAt ?? EXPIRY) : null,
      expiresAt: options.expiresAt ?? EXPIRY,
    });
    return { accountId, serverId: row.id };
  }

  /** Everything a pass may change for one server and its account. */
  async function state(accountId: number, serverId: number) {
    const [server] = await db.select().from(servers).where(eq(servers.id, serverId));
    const jobs = await db
      .select({ kind: serverJobs.kind, action: serverJobs.action })
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
    return { server, jobs, ledger, money: await balanceAndLedgerSum(db, accountId) };
  }

  it("renews from the balance once per period when auto-renew is on", async () => {
    const { accountId, serverId } = await serverWith({ balanceCents: 1000, autoRenew: true });

    // Not yet due: nothing happens.
    await runServerLifecycle(db, at(-HOUR));
    expect((await state(accountId, serverId)).money).toEqual({ balance: 1000, ledgerSum: 1000 });

    // At the expiry instant (renewInTx starts a late renewal from the pass's time, not the old expiry).
    const firstPass = at(0);
    await runServerLifecycle(db, firstPass);
    const renewed = await state(accountId, serverId);
    expect(renewed.server?.status).toBe("active");
    expect(renewed.server?.expiresAt.toISOString()).toBe("2026-04-01T00:00:00.000Z");
    expect(renewed.ledger.filter((entry) => entry.kind === "renewal")).toEqual([
      { amount: -PRICE, kind: "renewal", reference: `renewal:server:${serverId}:${EXPIRY.toISOString()}` },
    ]);
    expect(renewed.money).toEqual({ balance: 600, ledgerSum: 600 });

    // A second pass at the same instant: the period is paid, nothing moves.
    await runServerLifecycle(db, firstPass);
    expect(await state(accountId, serverId)).toEqual(renewed);

    // The next period is charged once more at its own expiry.
    await runServerLifecycle(db, () => new Date("2026-04-01T00:00:00Z"));
    const next = await state(accountId, serverId);
    expect(next.server?.expiresAt.toISOString()).toBe("2026-05-01T00:00:00.000Z");
    expect(next.ledger.filter((entry) => entry.kind === "renewal")).toHaveLength(2);
    expect(next.money).toEqual({ balance: 200, ledgerSum: 200 });
  });

  it("suspends without charging when the balance is short, and queues the stop once", async () => {
    const { accountId, serverId } = await serverWith({ balanceCents: PRICE - 1, autoRenew: true });
    const pass = at(HOUR);
    await runServerLifecycle(db, pass);
    const suspended = await state(accountId, serverId);
    expect(suspended.server?.status).toBe("suspended");
    expect(suspended.server?.powerState).toBe("stopped");
    expect(suspended.server?.suspendedAt?.toISOString()).toBe(pass().toISOString());
    expect(suspended.server?.expiresAt.toISOString()).toBe(EXPIRY.toISOString());
    expect(suspended.jobs).toEqual([{ kind: "power", action: "stop" }]);
    expect(suspended.ledger.map((entry) => entry.kind)).toEqual(["topup"]);
    expect(suspended.money).toEqual({ balance: PRICE - 1, ledgerSum: PRICE - 1 });

    await runServerLifecycle(db, pass);
    expect(await state(accountId, serverId)).toEqual(suspended);
  });

  it("suspends without charging when auto-renew is off, however large the balance", async () => {
    const { accountId, serverId } = await serverWith({ balanceCents: 10 * PRICE, autoRenew: false });
    await runServerLifecycle(db, at(HOUR));
    const after = await state(accountId, serverId);
    expect(after.server?.status).toBe("suspended");
    expect(after.money).toEqual({ balance: 10 * PRICE, ledgerSum: 10 * PRICE });
  });

  it("terminates a suspended server past the grace period with no charge", async () => {
    const { accountId, serverId } = await serverWith({
      balanceCents: PRICE - 1,
      autoRenew: true,
      status: "suspended",
    });

    // Inside the grace period: still suspended.
    await runServerLifecycle(db, at(7 * DAY - HOUR));
    expect((await state(accountId, serverId)).server?.status).toBe("suspended");

    const pass = at(7 * DAY + HOUR);
    await runServerLifecycle(db, pass);
    const ended = await state(accountId, serverId);
    expect(ended.server?.status).toBe("terminated");
    expect(ended.server?.terminatedAt?.toISOString()).toBe(pass().toISOString());
    expect(ended.server?.ip).toBeNull();
    expect(ended.server?.rootPasswordEnc).toBeNull();
    expect(ended.jobs).toEqual([{ kind: "destroy", action: null }]);
    expect(ended.ledger.map((entry) => entry.kind)).toEqual(["topup"]);
    expect(ended.money).toEqual({ balance: PRICE - 1, ledgerSum: PRICE - 1 });

    await runServerLifecycle(db, pass);
    expect(await state(accountId, serverId)).toEqual(ended);
  });

  it("brings a suspended auto-renew server back once its balance covers a cycle, inside the grace period", async () => {
    const { accountId, serverId } = await serverWith({
      balanceCents: PRICE,
      autoRenew: true,
      status: "suspended",
    });
    const pass = at(2 * DAY);
    await runServerLifecycle(db, pass);
    const back = await state(accountId, serverId);
    expect(back.server?.status).toBe("active");
    // The period starts now: the suspended days are not billed.
    expect(back.server?.expiresAt.toISOString()).toBe("2026-04-03T00:00:00.000Z");
    expect(back.jobs).toEqual([{ kind: "power", action: "start" }]);
    expect(back.money).toEqual({ balance: 0, ledgerSum: 0 });

    await runServerLifecycle(db, pass);
    expect(await state(accountId, serverId)).toEqual(back);
  });

  it("stops a suspended server again when its host reports it running after the stop failed for good", async () => {
    const { accountId, serverId } = await serverWith({
      balanceCents: 1,
      autoRenew: false,
      status: "suspended",
      expiresAt: new Date(EXPIRY.getTime() - DAY),
    });
    await db.update(servers).set({ hypervisor: "hv-1" }).where(eq(servers.id, serverId));
    const failedAt = at(0)();
    // The suspension's stop, failed for good: the machine kept running.
    await db.insert(serverJobs).values({
      serverId,
      kind: "power",
      action: "stop",
      state: "failed",
      attempts: 3,
      maxAttempts: 3,
      finishedAt: failedAt,
      lastError: "virsh shutdown: error: ...",
    });
    const hostSays = new Map([[serverId, "running" as const]]);
    const open = () =>
      db
        .select({ action: serverJobs.action })
        .from(serverJobs)
        .where(inArray(serverJobs.state, ["pending", "running"]));
    const reconcile = (ms: number) => reconcileHost(db, "hv-1", hostSays, at(ms), async () => undefined);

    // Right after the failure it waits before trying again, but records what the host says.
    await reconcile(60_000);
    expect((await state(accountId, serverId)).server?.powerState).toBe("running");
    expect(await open()).toEqual([]);

    // Later passes stop it again, once: the queued stop is in flight for the passes after.
    await reconcile(10 * 60_000);
    await reconcile(11 * 60_000);
    const after = await state(accountId, serverId);
    expect(after.server).toMatchObject({ status: "suspended", powerState: "running" });
    expect(await open()).toEqual([{ action: "stop" }]);

    // An active server the host reports running is left as it is.
    const other = await serverWith({ balanceCents: 1, autoRenew: false });
    await db
      .update(servers)
      .set({ hypervisor: "hv-1", powerState: "stopped" })
      .where(eq(servers.id, other.serverId));
    await reconcileHost(
      db,
      "hv-1",
      new Map([[other.serverId, "running" as const]]),
      at(12 * 60_000),
      async () => undefined,
    );
    const running = await state(other.accountId, other.serverId);
    expect(running.server?.powerState).toBe("running");
    expect(running.jobs).toEqual([]);
  });
});
