/**
 * A chain watcher finds payments to top-ups' deposit addresses and keeps their confirmation counts.
 * Real watchers read a chain; the demo watcher only "sees" payments simulated from the dashboard or API.
 */
export interface DepositWatcher {
  /** Also the name of its lease row, so two app instances never scan the same chain at once. */
  readonly name: string;
  /** True for the simulated watcher: its top-ups say `demo: true`. */
  readonly demo: boolean;
  /** The `deposit_network` values it covers. */
  readonly networks: readonly string[];
  /** One pass over the chain. Returns the ids of top-ups whose payments changed. */
  poll(): Promise<number[]>;
}

/** A transfer found on chain, before it is matched to a top-up row. */
export type ObservedPayment = {
  topupId: number;
  txHash: string;
  logIndex: number;
  amountUnits: bigint;
  blockNumber: number | null;
  blockHash: string | null;
  confirmations: number;
};
