import type { PushStatus } from "@/lib/db/types";

/**
 * A node's push: the notice it sends when a block arrives (litecoind's `-blocknotify`, bcoin's socket
 * events, monerod's ZMQ publisher, `eth_subscribe` on an EVM node). A notice is only a wake-up: the watcher
 * then polls as it always does, and the poll stays the source of truth. The poll also keeps running, slower
 * while the push is healthy, and is what notices a lost notice: a block the poll finds that no notice
 * announced.
 */

export type { PushStatus };

/** What a link reports to the watcher's runner. */
export type PushEvents = {
  /** A block arrived: its height when the notice says (a `-blocknotify` does not), its time when known. */
  notice(block?: { height: number; time?: Date }): void;
  /** The link is connected (again): blocks may have come meanwhile, so the watcher polls at once. */
  up(): void;
  /** The link is lost; it reconnects by itself. */
  down(reason: string): void;
};

/** A watcher's push link to its node. */
export interface PushLink {
  /** `notify`: the node runs a command per block; the others hold a connection open. */
  readonly kind: "notify" | "bcoin" | "zmq" | "websocket";
  start(events: PushEvents): void;
  stop(): Promise<void>;
  /** Drops the subscription and makes it again: a subscription can die without a word (a provider's WS). */
  renew?(): void;
  /** The time of the block at `height`, when the notices told it (for nodes the watcher cannot ask). */
  blockTime?(height: number): Date | undefined;
}

/**
 * The push as health shows it, and as the watcher's row keeps it. `status`: `ok`, the push works and the poll
 * may slow; `waiting`, a notify link has had no notice yet (no block since the start, or the node is not set
 * up to send them); `degraded`, a block came that no notice announced, until the next notice; `down`, the
 * connection is lost (it reconnects by itself). Only `ok` slows the poll.
 */
export type PushState = { status: PushStatus; missed: number; lastNoticeAt: string | null };

/** How long a block the poll found may wait for its notice before the notice counts as lost. */
export const NOTICE_GRACE_MS = 2_000;

/**
 * The state of one watcher's push and its gap detection, on a clock given by the caller (no timers here):
 *
 * - a notice whose height skips heights after the last announced one means notices were lost (the skipped
 *   ones are counted; the poll the notice wakes reads the blocks anyway);
 * - a poll that finds the node's tip above the last height announced, still unannounced `graceMs` later,
 *   means the notice was lost: counted, and the push is `degraded` (the poll speeds up) until the next notice.
 *
 * A notice without a height (`-blocknotify`) announces whatever tip the poll it wakes reads. Blocks that came
 * while a connection was down, and those before the first poll, are not counted as lost.
 */
export class PushMonitor {
  private connected: boolean;
  private announced = -1;
  /** Set while the next poll's tip is to be taken as announced (at start, after a reconnect). */
  private baseline = true;
  private lastNoticeAt: number | null = null;
  private missed = 0;
  private degraded = false;
  /** A block the poll found that no notice had announced yet. */
  private suspect: { height: number; since: number } | null = null;

  constructor(
    readonly connectionless: boolean,
    private readonly graceMs = NOTICE_GRACE_MS,
  ) {
    this.connected = connectionless;
  }

  /** A notice; returns how many notices before it were lost (a gap in the heights). */
  notice(height: number | undefined, at: number): number {
    this.lastNoticeAt = at;
    this.degraded = false;
    if (height === undefined) return 0;
    const lost = !this.baseline && this.announced >= 0 ? Math.max(0, height - this.announced - 1) : 0;
    this.missed += lost;
    // A reorg may announce a lower height: the branch's blocks are announced from there on.
    this.announced = height;
    if (this.suspect && height >= this.suspect.height) this.suspect = null;
    return lost;
  }

  up(): void {
    this.connected = true;
    this.baseline = true;
    this.suspect = null;
  }

  down(): void {
    if (this.connectionless) return;
    this.connected = false;
  }

  /**
   * A poll read the node's tip. `woken`: a notice without a height woke it, so the tip counts as announced.
   */
  polled(tip: number, woken: boolean, at: number): void {
    if (this.baseline || (woken && this.connectionless)) {
      this.baseline = false;
      this.announced = Math.max(this.announced, tip);
      if (this.suspect && this.announced >= this.suspect.height) this.suspect = null;
      return;
    }
    if (tip > this.announced && this.connected && !this.suspect) this.suspect = { height: tip, since: at };
  }

  /**
   * True when a notice announced a height above the tip a poll just read: the node announced the block before
   * its RPC (or the wallet reading it) had it (monerod publishes before its RPC answers). The poll is repeated.
   */
  behind(tip: number): boolean {
    return !this.connectionless && this.announced > tip;
  }

  /** Counts a suspect block whose notice never came; returns true when a notice was just found lost. */
  check(at: number): boolean {
    const suspect = this.suspect;
    if (!suspect) return false;
    const noticedSince = this.lastNoticeAt !== null && this.lastNoticeAt >= suspect.since;
    if (this.announced >= suspect.height || (this.connectionless && noticedSince)) {
      this.suspect = null;
      return false;
    }
    if (at - suspect.since < this.graceMs) return false;
    this.suspect = null;
    this.missed += Math.max(1, suspect.height - this.announced);
    this.announced = suspect.height;
    this.degraded = true;
    return true;
  }

  state(): PushState {
    const status: PushStatus = !this.connected
      ? "down"
      : this.degraded
        ? "degraded"
        : this.connectionless && this.lastNoticeAt === null
          ? "waiting"
          : "ok";
    const lastNoticeAt = this.lastNoticeAt === null ? null : new Date(this.lastNoticeAt).toISOString();
    return { status, missed: this.missed, lastNoticeAt };
  }

  /** The push can be relied on: the poll may run at its slower interval. */
  healthy(): boolean {
    return this.state().status === "ok";
  }
}

/** Keeps the times of the last `size` blocks a link announced, by height. */
export class BlockTimes {
  private readonly times = new Map<number, Date>();

  constructor(private readonly size = 256) {}

  set(height: number, time: Date): void {
    this.times.delete(height);
    this.times.set(height, time);
    if (this.times.size > this.size) {
      const [oldest] = this.times.keys();
      if (oldest !== undefined) this.times.delete(oldest);
    }
  }

  get(height: number): Date | undefined {
    return this.times.get(height);
  }
}

/** Waits before the `attempt`-th reconnection (from 0): 1 s, doubling, at most 30 s. */
export const reconnectDelayMs = (attempt: number) => Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5));
