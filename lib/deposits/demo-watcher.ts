import "server-only";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { db } from "@/lib/db/client";
import { recordPayments } from "./payments";
import type { DepositWatcher } from "./watcher";

/** Simulated payments carry this transaction-id prefix, so they can never be taken for real ones. */
export const DEMO_TX_PREFIX = "demo-";

/**
 * The demo mode's stand-in for a chain: it sees only payments simulated through the demo endpoint, and
 * gives each one more confirmation per poll, so the dashboard shows "confirming" before "completed".
 */
export class DemoWatcher implements DepositWatcher {
  readonly name = "demo";
  readonly demo = true;

  constructor(readonly networks: readonly string[]) {}

  async poll(): Promise<number[]> {
    if (this.networks.length === 0) return [];
    const database = await db();
    const result = await database.execute(sql`
      UPDATE deposit_payments AS p SET confirmations = p.confirmations + 1
      FROM topups AS t
      WHERE p.topup_id = t.id
        AND p.tx_hash LIKE ${`${DEMO_TX_PREFIX}%`}
        AND p.network IN (${sql.join(
          this.networks.map((n) => sql`${n}`),
          sql`, `,
        )})
        AND p.confirmations < t.confirmations_required
      RETURNING p.topup_id`);
    const rows = (result as unknown as { rows: { topup_id: number }[] }).rows;
    return [...new Set(rows.map((row) => Number(row.topup_id)))];
  }

  /** Records a simulated payment of `units` to the top-up's address, seen in a block but unconfirmed. */
  async pay(topupId: number, network: string, units: bigint): Promise<void> {
    await recordPayments(network, [
      {
        topupId,
        txHash: `${DEMO_TX_PREFIX}${randomBytes(16).toString("hex")}`,
        logIndex: -1,
        amountUnits: units,
        blockNumber: null,
        blockHash: null,
        confirmations: 0,
      },
    ]);
  }
}
