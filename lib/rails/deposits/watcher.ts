import type { NodeExpectations } from "./node-view";
import type { PushLink } from "./push";

/** The node a real watcher reads, as health shows it (no credentials). */
export type WatcherNode = { url: string };

/**
 * A chain watcher finds payments to top-ups' deposit addresses and keeps their confirmation counts.
 * Real watchers read a chain; the demo watcher only "sees" payments simulated from the dashboard or API.
 * What they see is recorded in ./sightings; the one thing a watcher reports upward is what `poll` returns,
 * the top-ups whose payments changed, which the background hands to lib/topups/settlement, which alone
 * credits. Nothing here knows the top-up rules.
 */
export interface DepositWatcher {
  /** Also the name of its lease row, so two app instances never scan the same chain at once. */
  readonly name: string;
  /** True for the simulated watcher: its top-ups say `demo: true`. */
  readonly demo: boolean;
  /** The `deposit_network` values it covers. */
  readonly networks: readonly string[];
  /** The node it reads; undefined for the demo watcher. */
  readonly node?: WatcherNode;
  /**
   * Its node's push, when configured: each notice wakes a poll at once, and while it works the polls come
   * less often (./push). Undefined: it polls only.
   */
  readonly push?: PushLink;
  /**
   * What health expects of its node (peers, the age of its newest block), for a watcher whose node says
   * what it sees (the poll saves that with the cursor); undefined: its node is judged only by its answers.
   */
  readonly expectations?: NodeExpectations;
  /** The node's best block height as its last poll read it: the push's gap detection compares it. */
  readonly lastTip?: number;
  /**
   * One pass over the chain. Returns the ids of top-ups whose payments changed. `lease` is aborted when
   * this instance no longer holds the watcher's lease: the poll should stop (its cursor would not be saved).
   */
  poll(lease?: AbortSignal): Promise<number[]>;
  /**
   * Called when a top-up takes the address of `derivationIndex`, before anyone is shown it: a watcher that
   * must learn an address first (Monero's wallet makes the subaddress) does so here.
   */
  prepareAddress?(derivationIndex: number): Promise<void>;
}
