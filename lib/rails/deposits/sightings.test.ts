import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "@/lib/db/client";
import { depositPayments } from "@/lib/db/schema";
import { createAccount, scratchConfigEnv } from "@/lib/testing/memory-db";
import {
  confirmSimulatedPayments,
  observePayments,
  recordConfirmingBlockTimes,
  setConfirmations,
  unconfirmPayment,
} from "./sightings";

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
    .select({ id: depositPayments.id, at: depositPayments.confirmingBlockAt })
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

/** A chain whose block at height h was made at T0 + h minutes; records which heights were asked for. */
function chainTimes() {
  const asked: number[] = [];
  const timeOf = async (height: number) => {
    asked.push(height);
    return new Date(T0 + height * 60_000);
  };
  return { asked, timeOf };
}

describe("the time of the block that completed a payment's confirmations (block -> credit on the status page)", () => {
  beforeAll(async () => {
    accountId = await createAccount(await db());
    vi.useFakeTimers({ toFake: ["Date"], now: T0 });
  }, 120_000);
  afterAll(() => {
    vi.useRealTimers();
    restoreEnv();
  });

  it("is read from the chain at the height that gave the last required confirmation, once, and only then", async () => {
    const id = await topup("block-a");
    await observePayments("block-a", [payment(id, "tx-a", 1, "block-100")]);
    const chain = chainTimes();
    await recordConfirmingBlockTimes("block-a", chain.timeOf);
    expect(chain.asked).toEqual([]);
    expect((await seen("tx-a")).at).toBeNull();
    const { id: paymentId } = await seen("tx-a");
    await setConfirmations(paymentId, 2);
    await recordConfirmingBlockTimes("block-a", chain.timeOf);
    // Mined at 100, two confirmations needed: block 101 completed them.
    expect(chain.asked).toEqual([101]);
    expect((await seen("tx-a")).at).toEqual(new Date(T0 + 101 * 60_000));
    await recordConfirmingBlockTimes("block-a", chain.timeOf);
    expect(chain.asked).toEqual([101]);
  });

  it("is left empty when the chain cannot tell, and cleared if the block leaves the chain before it counted", async () => {
    const id = await topup("block-b");
    await observePayments("block-b", [payment(id, "tx-b", 2, "block-100")]);
    await recordConfirmingBlockTimes("block-b", async () => undefined);
    expect((await seen("tx-b")).at).toBeNull();
    await recordConfirmingBlockTimes("block-b", chainTimes().timeOf);
    expect((await seen("tx-b")).at).not.toBeNull();
    const { id: paymentId } = await seen("tx-b");
    await unconfirmPayment(paymentId);
    expect((await seen("tx-b")).at).toBeNull();
  });

  it("is kept by a payment that counted when its block later leaves the chain", async () => {
    const id = await topup("block-c");
    await observePayments("block-c", [payment(id, "tx-c", 2, "block-100")]);
    await recordConfirmingBlockTimes("block-c", chainTimes().timeOf);
    const { id: paymentId, at } = await seen("tx-c");
    const database = await db();
    await database
      .update(depositPayments)
      .set({ confirmedAt: new Date() })
      .where(eq(depositPayments.id, paymentId));
    await unconfirmPayment(paymentId);
    expect((await seen("tx-c")).at).toEqual(at);
  });

  it("is the time of the demo's simulated block that completes the confirmations", async () => {
    const id = await topup("block-demo");
    await observePayments("block-demo", [payment(id, "demo-sighted", 0, null)]);
    await confirmSimulatedPayments(["block-demo"], "demo-");
    expect((await seen("demo-sighted")).at).toBeNull();
    const at = advanceClock(1);
    await confirmSimulatedPayments(["block-demo"], "demo-");
    expect((await seen("demo-sighted")).at).toEqual(at);
  });
});
