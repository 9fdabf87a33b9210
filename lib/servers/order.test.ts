import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import type { CreateServerRequest } from "@/lib/api/schemas/servers";
import { findLocation, findPlan, priceFor } from "@/lib/catalog/catalog";
import type { Database } from "@/lib/db/client";
import { ledgerEntries, serverJobs, servers } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  openMemoryDatabase,
  PUP_ORDER,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { orderServer } from "./order";

// config() is read on first use: demo secrets go to a scratch DATA_DIR, and the simulated provisioner
// with no hypervisors (nothing to place) is the one in use.
const restoreEnv = scratchConfigEnv();

const CLOCK = new Date("2026-04-01T10:00:00Z");
const clock = () => CLOCK;
const request = PUP_ORDER;
const plan = findPlan("pup");
const location = findLocation("nl");
if (!plan || !location) throw new Error("catalog lost pup or nl");
const PRICE = priceFor(plan, location, "monthly");

describe("ordering, directly against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => {
    await close();
    restoreEnv();
  });

  const fundedAccount = (balanceCents: number) => createFundedAccount(db, balanceCents);

  const order = (accountId: number, body: CreateServerRequest, key?: string) =>
    orderServer({ accountId, apiKeyId: null }, body, key, db, clock);

  const serversOf = (accountId: number) => db.select().from(servers).where(eq(servers.accountId, accountId));
  const ledgerOf = (accountId: number) =>
    db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId));

  it("charges exactly the plan price with one ledger row and records the server and its provision job", async () => {
    const accountId = await fundedAccount(PRICE + 250);
    const response = await order(accountId, request);
    expect(response.status).toBe(201);
    const body = response.body as { id: number; root_password?: string; expires_at: string };
    expect(body.root_password).toEqual(expect.any(String));

    const rows = await serversOf(accountId);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.id).toBe(body.id);
    expect(row?.priceCents).toBe(PRICE);
    expect(row?.createdAt.toISOString()).toBe(CLOCK.toISOString());
    expect(row?.expiresAt.toISOString()).toBe("2026-05-01T10:00:00.000Z");
    expect(row?.rootPasswordEnc).toBeTruthy();

    const jobs = await db.select().from(serverJobs).where(eq(serverJobs.serverId, body.id));
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([["provision", "pending"]]);

    const charges = (await ledgerOf(accountId)).filter((entry) => entry.kind === "order");
    expect(charges.map((entry) => [entry.amountCents, entry.reference])).toEqual([
      [-PRICE, `order:server:${body.id}`],
    ]);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 250, ledgerSum: 250 });
  });

  it("refuses a short balance with 402 before anything is written", async () => {
    const accountId = await fundedAccount(PRICE - 1);
    const error = await order(accountId, request, "short-1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).status, (error as ApiError).code]).toEqual([402, "insufficient_balance"]);
    expect(await serversOf(accountId)).toHaveLength(0);
    expect(await ledgerOf(accountId)).toHaveLength(1);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: PRICE - 1, ledgerSum: PRICE - 1 });

    // The failure did not hold the key: once funded, the same key orders.
    await db.transaction((tx) =>
      postLedgerEntry(tx, {
        accountId,
        amountCents: 1,
        kind: "topup",
        reference: `topup:${accountId}:more`,
        apiKeyId: null,
      }),
    );
    expect((await order(accountId, request, "short-1")).status).toBe(201);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: 0, ledgerSum: 0 });
  });

  it("refuses an OS the catalog does not have before charging", async () => {
    const accountId = await fundedAccount(PRICE);
    const unknownOs = { ...request, os: "plan9" } as unknown as CreateServerRequest;
    await expect(order(accountId, unknownOs)).rejects.toMatchObject({ status: 409, code: "os_unavailable" });
    expect(await serversOf(accountId)).toHaveLength(0);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: PRICE, ledgerSum: PRICE });
  });

  it("replays the same Idempotency-Key without a second charge, and refuses it for another body", async () => {
    const accountId = await fundedAccount(PRICE * 3);
    const first = await order(accountId, request, "order-key-1");
    expect(first.status).toBe(201);
    const firstBody = first.body as { id: number; root_password?: string };
    expect(firstBody.root_password).toEqual(expect.any(String));

    const replay = await order(accountId, request, "order-key-1");
    expect(replay.status).toBe(201);
    expect(replay.headers?.["Idempotent-Replayed"]).toBe("true");
    const replayBody = replay.body as { id: number; root_password?: string };
    expect(replayBody.id).toBe(firstBody.id);
    // The stored answer never held the password.
    expect(replayBody.root_password).toBeUndefined();
    expect(await serversOf(accountId)).toHaveLength(1);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: PRICE * 2, ledgerSum: PRICE * 2 });

    const changed = await order(accountId, { ...request, auto_renew: true }, "order-key-1").catch(
      (caught: unknown) => caught,
    );
    expect(changed).toBeInstanceOf(ApiError);
    expect([(changed as ApiError).status, (changed as ApiError).code]).toEqual([
      422,
      "idempotency_key_reused",
    ]);
    expect(await serversOf(accountId)).toHaveLength(1);
    expect((await ledgerOf(accountId)).filter((entry) => entry.kind === "order")).toHaveLength(1);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: PRICE * 2, ledgerSum: PRICE * 2 });
  });
});
