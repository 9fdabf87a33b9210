import "server-only";
import { randomBytes } from "node:crypto";
import { confirmSimulatedPayments, observePayments } from "./sightings";
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

  poll(): Promise<number[]> {
    return confirmSimulatedPayments(this.networks, DEMO_TX_PREFIX);
  }

  /** Records a simulated payment of `units` to the top-up's address, seen in a block but unconfirmed. */
  async pay(topupId: number, network: string, units: bigint): Promise<void> {
    await observePayments(network, [
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
