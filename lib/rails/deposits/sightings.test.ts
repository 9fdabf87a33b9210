import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { depositPayments } from "@/lib/db/schema";
import { createAccount, scratchConfigEnv } from "@/lib/testing/memory-db";
import { confirmSimulatedPayments, observePayments, setConfirmations, unconfirmPayment } from "./sightings";

// The process database is an embedded one in a scratch DATA_DIR.
const restoreEnv = scratchConfigEnv();

let accountId: number;

/** The system's time, held still between the steps of a test (only Date is faked). */
const T0 = Date.parse("2026-06-01T10:00:00Z");
let elapsed = 0;
function advanceClock(seconds: number): Date {
  elapsed += seconds * 1000;
  vi.setSystemTime(T0 + elapsed);
  return new Date(T0 + elapsed);
}
let topups = 0;

/** A deposit top-up on `network` needing two confirmations; returns its id. */
async function topup(network: string): Promise<number> {
  const database = await db();
  const ref = `sighted-${++topups}`;
  const result = await database.execute(sql`INSERT INTO topups (ref, account_id, method, coin, network,
      amount_cents, deposit_address, deposit_units, rate_usd, rate_source, confirmations_required, expires_at)
    VALUES (${ref}, ${accountId}, 'deposit', 'BTC', ${network}, 2500, ${`addr-${ref}`}, 1000, 50000, 'test', 2,
      now() + interval '30 minutes')
    RETURNING id`);
  return Number((result as unknown as { rows: { id: number }[] }).rows[0]?.id);
}

async function seen(txHash: string) {
  const database = await db();
  const [row] = await database
    .select({ id: depositPayments.id, at: depositPayments.confirmingSeenAt })
    .from(depositPayments)
    .where(eq(depositPayments.txHash, txHash));
  if (!row) throw new Error(`no payment ${txHash}`);
  return row;
}

const payment = (topupId: number, txHash: string, confirmations: number, block: string | null) => ({
  topupId,
  txHash,
  logIndex: -1,
  amountUnits: 1000n,
  blockNumber: block === null ? null : 100,
  blockHash: block,
  confirmations,
});

describe("the first sighting of a payment's confirming block (the status page's block -> credit start)", () => {
  beforeAll(async () => {
    accountId = await createAccount(await db());
    vi.useFakeTimers({ toFake: ["Date"], now: T0 });
  }, 120_000);
  afterAll(() => {
    vi.useRealTimers();
    restoreEnv();
  });

  it("is set when the confirmations first reach what the top-up needs, kept, and cleared if they fall back", async () => {
    const id = await topup("sight-a");
    await observePayments("sight-a", [payment(id, "tx-a", 0, null)]);
    const { id: paymentId } = await seen("tx-a");
    expect((await seen("tx-a")).at).toBeNull();
    await setConfirmations(paymentId, 1);
    expect((await seen("tx-a")).at).toBeNull();
    const reached = advanceClock(60);
    await setConfirmations(paymentId, 2);
    expect((await seen("tx-a")).at).toEqual(reached);
    advanceClock(60);
    await setConfirmations(paymentId, 3);
    expect((await seen("tx-a")).at).toEqual(reached);
    // Its block left the chain before it counted: the next confirming block is a new sighting.
    await unconfirmPayment(paymentId);
    expect((await seen("tx-a")).at).toBeNull();
    const again = advanceClock(60);
    await observePayments("sight-a", [payment(id, "tx-a", 2, "block-b")]);
    expect((await seen("tx-a")).at).toEqual(again);
  });

  it("is the first sighting itself for a payment found already deep in the chain, and kept once it counted", async () => {
    const id = await topup("sight-b");
    const at = advanceClock(1);
    await observePayments("sight-b", [payment(id, "tx-deep", 5, "block-deep")]);
    const { id: paymentId } = await seen("tx-deep");
    expect((await seen("tx-deep")).at).toEqual(at);
    const database = await db();
    await database.update(depositPayments).set({ confirmedAt: at }).where(eq(depositPayments.id, paymentId));
    await unconfirmPayment(paymentId);
    expect((await seen("tx-deep")).at).toEqual(at);
  });

  it("is set by the demo's simulated confirmations as well", async () => {
    const id = await topup("sight-demo");
    await observePayments("sight-demo", [payment(id, "demo-sighted", 0, null)]);
    await confirmSimulatedPayments(["sight-demo"], "demo-");
    expect((await seen("demo-sighted")).at).toBeNull();
    const at = advanceClock(1);
    await confirmSimulatedPayments(["sight-demo"], "demo-");
    expect((await seen("demo-sighted")).at).toEqual(at);
  });
});
