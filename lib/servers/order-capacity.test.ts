import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findLocation, findPlan, priceFor } from "@/lib/catalog/catalog";
import type { Database } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import {
  balanceAndLedgerSum,
  createFundedAccount,
  openMemoryDatabase,
  PUP_ORDER,
  scratchConfigEnv,
} from "@/lib/testing/memory-db";
import { orderServer } from "./order";

// config() is read on first use: one host in nl with room for exactly one pup (1 GB, 1 vCPU, 20 GB),
// still under the simulated provisioner; demo secrets go to a scratch DATA_DIR.
const restoreEnv = scratchConfigEnv({
  HYPERVISORS: JSON.stringify([
    { name: "nl-small", location: "nl", uri: "qemu:///system", memory_mb: 1024, vcpus: 1, disk_gb: 20 },
  ]),
});

const clock = () => new Date("2026-04-01T10:00:00Z");
const request = PUP_ORDER;
const plan = findPlan("pup");
const location = findLocation("nl");
if (!plan || !location) throw new Error("catalog lost pup or nl");
const PRICE = priceFor(plan, location, "monthly");

describe("ordering with a full host, directly against the real schema", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openMemoryDatabase()), 120_000);
  afterAll(async () => {
    await close();
    restoreEnv();
  });

  it("places the first order on the host and refuses the next with out_of_capacity before charging", async () => {
    const accountId = await createFundedAccount(db, PRICE * 2);
    const first = await orderServer({ accountId, apiKeyId: null }, request, undefined, db, clock);
    expect(first.status).toBe(201);
    const [placed] = await db.select().from(servers).where(eq(servers.accountId, accountId));
    expect(placed?.hypervisor).toBe("nl-small");
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: PRICE, ledgerSum: PRICE });

    await expect(
      orderServer({ accountId, apiKeyId: null }, request, "full-1", db, clock),
    ).rejects.toMatchObject({
      status: 409,
      code: "out_of_capacity",
    });
    expect(await db.select().from(servers).where(eq(servers.accountId, accountId))).toHaveLength(1);
    expect(await balanceAndLedgerSum(db, accountId)).toEqual({ balance: PRICE, ledgerSum: PRICE });
  });
});
