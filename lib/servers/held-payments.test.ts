import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, db } from "@/lib/db/client";
import { accounts, heldOrderPayments, ledgerEntries, serverJobs, servers } from "@/lib/db/schema";
import { createFundedAccount, PUP_ORDER, scratchConfigEnv } from "@/lib/testing/memory-db";
import { endFailedBuild } from "./billing";
import { terminateServer } from "./control";
import { suspendUnpaidOrder } from "./held-payments";
import { runJobNow } from "./jobs";
import { orderServer } from "./order";

// The simulated provisioner building at once, on the process database in a scratch DATA_DIR.
const restoreEnv = scratchConfigEnv({ PROVISION_DELAY_SECONDS: "0" });

/** A Pup in Amsterdam: 4 USD a month (lib/catalog). */
const PUP_CENTS = 400;

describe("an order whose x402 payment is held while its server is built (real schema)", () => {
  let database: Database;
  beforeAll(async () => {
    database = await db();
  }, 120_000);
  afterAll(() => restoreEnv());

  let nonce = 0;
  /** An order on an empty balance, its payment held: the server, its provision job and the account. */
  async function heldOrder() {
    const accountId = await createFundedAccount(database, 1);
    nonce += 1;
    const created = await orderServer(
      { accountId, apiKeyId: null },
      PUP_ORDER,
      undefined,
      undefined,
      undefined,
      {
        amountCents: PUP_CENTS,
        version: 1,
        payment: "signed-payment",
        resource: "http://127.0.0.1/api/v1/servers",
        maxTimeoutSeconds: 900,
        payer: "0x00000000000000000000000000000000000000aa",
        nonce: `0x${nonce.toString(16).padStart(64, "0")}`,
        validBefore: new Date(Date.now() + 900_000),
      },
    );
    expect(created.status).toBe(201);
    const id = (created.body as { id: number }).id;
    const [job] = await database.select().from(serverJobs).where(eq(serverJobs.serverId, id));
    if (!job) throw new Error("no provision job");
    return { accountId, id, job };
  }
  const holdOf = async (serverId: number) =>
    (await database.select().from(heldOrderPayments).where(eq(heldOrderPayments.serverId, serverId)))[0];
  const serverOf = async (id: number) => (await database.select().from(servers).where(eq(servers.id, id)))[0];
  const ledgerOf = (accountId: number) =>
    database
      .select({ kind: ledgerEntries.kind, amountCents: ledgerEntries.amountCents })
      .from(ledgerEntries)
      .where(eq(ledgerEntries.accountId, accountId));
  const balanceOf = async (accountId: number) =>
    (await database.select().from(accounts).where(eq(accounts.id, accountId)))[0]?.balanceCents;

  it("orders without the balance and charges nothing; the payment is held, then due once the server is built", async () => {
    const { accountId, id, job } = await heldOrder();
    expect(await holdOf(id)).toMatchObject({ state: "held", amountCents: PUP_CENTS, accountId });
    expect(await ledgerOf(accountId)).toEqual([{ kind: "topup", amountCents: 1 }]);
    expect(await runJobNow(job.id, 10_000)).toBe(true);
    expect((await serverOf(id))?.status).toBe("active");
    expect((await holdOf(id))?.state).toBe("due");
    expect(await balanceOf(accountId)).toBe(1);
  });

  it("a build that fails for good releases the payment: nothing refunded, nothing charged, and the reason says so", async () => {
    const { accountId, id, job } = await heldOrder();
    await database.transaction((tx) => endFailedBuild(tx, { ...job, attempts: 3 }, "the host refused"));
    expect(await holdOf(id)).toMatchObject({
      state: "released",
      reason: "the build failed: the host refused",
    });
    expect(await ledgerOf(accountId)).toEqual([{ kind: "topup", amountCents: 1 }]);
    const server = await serverOf(id);
    expect(server?.status).toBe("terminated");
    expect(server?.statusReason).toContain("the x402 payment was released, never taken");
  });

  it("an order its owner ends before it is built releases the payment", async () => {
    const { accountId, id } = await heldOrder();
    await terminateServer(accountId, id);
    expect((await holdOf(id))?.state).toBe("released");
    expect(await ledgerOf(accountId)).toEqual([{ kind: "topup", amountCents: 1 }]);
  });

  it("a payment that cannot be settled suspends the built server as an unpaid one, stopped at once", async () => {
    const { id, job } = await heldOrder();
    expect(await runJobNow(job.id, 10_000)).toBe(true);
    const before = Date.now();
    // Read before the transaction: PGlite has one connection, which the transaction holds.
    const row = await serverOf(id);
    if (!row) throw new Error("no server");
    await database.transaction((tx) =>
      suspendUnpaidOrder(tx, row, "the paying wallet does not hold enough USDC"),
    );
    const server = await serverOf(id);
    expect(server).toMatchObject({ status: "suspended", powerState: "stopped" });
    expect(server?.expiresAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(server?.statusReason).toContain(
      "could not be settled (the paying wallet does not hold enough USDC)",
    );
    const stops = await database
      .select()
      .from(serverJobs)
      .where(and(eq(serverJobs.serverId, id), eq(serverJobs.kind, "power")));
    expect(stops.map((stop) => stop.action)).toEqual(["stop"]);
  });
});
