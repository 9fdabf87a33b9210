import "server-only";
import { databaseHandle } from "@/lib/db/client";
import { acquireLease } from "@/lib/db/lease";
import { maintainEmbeddedDatabase } from "@/lib/db/maintenance";
import { pace } from "@/lib/db/pace";
import { announceDueWarnings } from "@/lib/notifications/scans";
import { startDeliveryWorker } from "@/lib/notifications/worker";
import { settleDueOrderPayments } from "@/lib/purchases/order";
import { depositSettings } from "@/lib/rails/deposits/config";
import { LeaseLostError, recordWatcherError, savePushState } from "@/lib/rails/deposits/cursor";
import { PushMonitor } from "@/lib/rails/deposits/push";
import type { DepositWatcher } from "@/lib/rails/deposits/watcher";
import { depositRails } from "@/lib/rails/setup";
import { releaseWatcherLeasesOnShutdown, watchersStopping } from "@/lib/rails/shutdown";
import { onHeldPaymentsDue } from "@/lib/servers/held-payments";
import { runServerLifecycle } from "@/lib/servers/lifecycle";
import { startMetricsSampling } from "@/lib/servers/metrics/sampler";
import { syncPtrs } from "@/lib/servers/network/rdns";
import { expireDueTopups, settleOutstandingTopups, settleTopups } from "@/lib/topups/settlement";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { pruneWhenDue } from "./retention";

/** One message per problem per minute: a chain that is down must not flood the log. */
const lastLogged = new Map<string, number>();
function logThrottled(key: string, message: string) {
  const now = Date.now();
  if ((lastLogged.get(key) ?? 0) + 60_000 > now) return;
  lastLogged.set(key, now);
  console.error(message);
}

/** A short reason for health and the top-up refusal: the first line, and the cause of a failed fetch. */
function describeFailure(error: unknown): string {
  const failure = error as Error & { cause?: { code?: string; message?: string } };
  const first = firstLine(error);
  const cause = failure.cause?.code ?? failure.cause?.message;
  return cause ? `${first}: ${cause}` : first;
}

/**
 * Top-ups a watcher reported as changed are settled at most this many per pass, oldest report first; the
 * rest wait for the next pass (and, should the process stop, the outstanding sweep reaches them).
 */
const SETTLE_PER_PASS = 100;

function nextToSettle(touched: number[]): number[] {
  const queue = processWide("deposits.to-settle", () => new Set<number>());
  for (const id of touched) queue.add(id);
  const batch = [...queue].slice(0, SETTLE_PER_PASS);
  for (const id of batch) queue.delete(id);
  return batch;
}

/** How long a watcher's lease lasts between renewals. */
const leaseMs = () => Math.max(30_000, depositSettings().watcherIntervalMs * 4);

/**
 * One watcher's poll, if this instance holds (or takes) its lease: undefined when another instance does.
 * While the poll runs the lease is renewed every third of `ttlMs`, so a long poll (a first mempool read, a
 * wallet rescan) never outlives it and lets a second instance poll the same chain. Should a renewal find
 * the lease gone, the poll's signal is aborted; its cursor would not be saved anyway (saveCursor).
 */
export async function pollUnderLease(watcher: DepositWatcher, ttlMs: number): Promise<number[] | undefined> {
  if (!(await acquireLease(watcher.name, ttlMs))) return undefined;
  const lease = new AbortController();
  const renewal = setInterval(() => {
    acquireLease(watcher.name, ttlMs).then(
      (held) => {
        if (!held) lease.abort(new LeaseLostError(watcher.name));
      },
      (error: unknown) => lease.abort(error),
    );
  }, ttlMs / 3);
  try {
    return await watcher.poll(lease.signal);
  } finally {
    clearInterval(renewal);
  }
}

/** What the runner keeps per watcher: the poll running now, and its push's state. */
type WatcherSlot = {
  running: Promise<void> | undefined;
  /** A notice came while a poll ran: poll once more when it ends. */
  again: boolean;
  lastPolledAt: number;
  monitor: PushMonitor | undefined;
  /** The push state last written to the watcher's row. */
  savedPush: string | undefined;
  /** Polls repeated because the node had not the block its notice announced yet. */
  catchUps: number;
};

/** A poll that read a tip below the announced height is repeated this much later, this many times at most. */
const CATCH_UP_MS = 50;
const CATCH_UP_TRIES = 40;

function slotOf(watcher: DepositWatcher): WatcherSlot {
  const slots = processWide("deposits.watcher-slots", () => new Map<string, WatcherSlot>());
  let slot = slots.get(watcher.name);
  if (!slot) {
    slot = {
      running: undefined,
      again: false,
      lastPolledAt: 0,
      monitor: undefined,
      savedPush: undefined,
      catchUps: 0,
    };
    slots.set(watcher.name, slot);
  }
  return slot;
}

/** Writes the push's state on the watcher's row when it changed (only the lease holder's counts). */
async function savePush(watcher: DepositWatcher, slot: WatcherSlot): Promise<void> {
  if (!slot.monitor) return;
  const state = slot.monitor.state();
  const text = JSON.stringify(state);
  if (text === slot.savedPush) return;
  if (await savePushState(watcher.name, state)) slot.savedPush = text;
}

/** One poll and the settlement of what it touched. `woken`: a push notice asked for it. */
async function pollAndSettle(watcher: DepositWatcher, slot: WatcherSlot, woken: boolean): Promise<void> {
  slot.lastPolledAt = Date.now();
  try {
    let touched: number[] | undefined;
    try {
      touched = await pollUnderLease(watcher, leaseMs());
    } catch (error) {
      if (error instanceof LeaseLostError) {
        logThrottled(watcher.name, `watcher ${watcher.name}: ${error.message}`);
        return;
      }
      // Logged by recordWatcherError when the reason changes.
      await recordWatcherError(watcher.name, describeFailure(error));
      return;
    }
    if (!touched) return;
    if (slot.monitor && watcher.lastTip !== undefined) {
      slot.monitor.polled(watcher.lastTip, woken, Date.now());
      if (!slot.monitor.behind(watcher.lastTip)) slot.catchUps = 0;
      else if (slot.catchUps++ < CATCH_UP_TRIES) {
        setTimeout(() => {
          if (!watchersStopping()) void pollWatcher(watcher, true);
        }, CATCH_UP_MS).unref();
      }
    }
    // The push's state first: by the time a credit shows, /health tells how the notice that brought it went.
    await savePush(watcher, slot);
    await settleTopups(nextToSettle(touched));
  } catch (error) {
    logThrottled(watcher.name, `watcher ${watcher.name}: ${firstLine(error)}`);
  }
}

/**
 * Polls `watcher` and settles what it touched, one poll at a time per watcher: asked while one runs, a
 * notice's poll runs once more after it (however many notices came meanwhile), a timer's is not needed.
 */
export function pollWatcher(watcher: DepositWatcher, woken = false): Promise<void> {
  const slot = slotOf(watcher);
  if (slot.running) {
    if (woken) slot.again = true;
    return slot.running;
  }
  slot.running = (async () => {
    let wake = woken;
    do {
      slot.again = false;
      await pollAndSettle(watcher, slot, wake);
      wake = true;
    } while (slot.again && !watchersStopping());
  })().finally(() => {
    slot.running = undefined;
  });
  return slot.running;
}

/**
 * Starts every watcher's push link (once per process): each notice polls that watcher at once, and each
 * (re)connection too, since blocks may have come while it was down. A failing link only costs speed: the
 * passes keep polling.
 */
export function startPushLinks(): void {
  let watchers: DepositWatcher[] = [];
  try {
    watchers = depositRails().watchers;
  } catch {
    return; // runWatcherPass logs why
  }
  processWide("deposits.push-links", () => {
    for (const watcher of watchers) {
      const push = watcher.push;
      if (!push) continue;
      const slot = slotOf(watcher);
      const monitor = new PushMonitor(push.kind === "notify");
      slot.monitor = monitor;
      const wake = () => {
        if (!watchersStopping()) void pollWatcher(watcher, true);
      };
      push.start({
        notice(block) {
          const lost = monitor.notice(block?.height, Date.now());
          if (lost > 0)
            logThrottled(`${watcher.name}:push`, `watcher ${watcher.name}: ${lost} block notices were lost`);
          wake();
        },
        up() {
          monitor.up();
          wake();
        },
        down(reason) {
          monitor.down();
          logThrottled(
            `${watcher.name}:push`,
            `watcher ${watcher.name}: its node's push is down (${reason}); polling`,
          );
        },
      });
    }
    return true;
  });
}

/**
 * The deposit side of a pass: every watcher whose lease we hold polls its chain and the top-ups it
 * touched are settled, then outstanding top-ups are swept and due ones expired, each in bounded batches.
 * A watcher whose node's push works polls only every WATCHER_PUSH_INTERVAL_MS (its notices wake it between);
 * its push's gap check runs every pass. Nothing one watcher does (not even failing to be built) stops the
 * others or the rest of the pass.
 */
export async function runWatcherPass(): Promise<void> {
  let watchers: DepositWatcher[] = [];
  try {
    watchers = depositRails().watchers;
  } catch (error) {
    logThrottled("rails", `deposit watchers: ${firstLine(error)}`);
  }
  for (const watcher of watchers) {
    if (watchersStopping()) break;
    const slot = slotOf(watcher);
    const monitor = slot.monitor;
    if (monitor?.check(Date.now())) {
      logThrottled(
        `${watcher.name}:push`,
        `watcher ${watcher.name}: a block came without its notice; polling at the base interval until the next`,
      );
      watcher.push?.renew?.();
    }
    const interval = monitor?.healthy() ? depositSettings().pushIntervalMs : 0;
    if (Date.now() - slot.lastPolledAt >= interval) await pollWatcher(watcher);
    else await savePush(watcher, slot).catch(() => undefined);
  }
  try {
    await settleOutstandingTopups();
    await expireDueTopups();
  } catch (error) {
    logThrottled("expiry", `top-up expiry: ${firstLine(error)}`);
  }
}

/** Stands in for autovacuum on PGlite (lib/db/maintenance.ts); PostgreSQL runs its own. */
async function maintainIfEmbedded(): Promise<void> {
  try {
    const handle = await databaseHandle();
    if (handle.kind === "pglite") await maintainEmbeddedDatabase(handle.db, pace);
  } catch (error) {
    logThrottled("maintenance", `database maintenance: ${firstLine(error)}`);
  }
}

/**
 * One pass of background work: upkeep of the embedded database, the deposit watchers and top-up expiry,
 * then the server lifecycle (provisioning, renewals, suspensions, terminations), and now and then the
 * deletion of rows past their retention.
 */
export async function runBackgroundPass(): Promise<void> {
  await maintainIfEmbedded();
  await runWatcherPass();
  try {
    // Before the lifecycle: a server is warned of its expiry before it can be suspended for it.
    await announceDueWarnings();
  } catch (error) {
    logThrottled("notifications", `expiry and balance warnings: ${firstLine(error)}`);
  }
  try {
    await runServerLifecycle();
  } catch (error) {
    logThrottled("servers", `server lifecycle: ${firstLine(error)}`);
  }
  try {
    // Orders paid with x402 whose servers now answer: their held payments are settled.
    await settleDueOrderPayments();
  } catch (error) {
    logThrottled("x402-orders", `settling x402-paid orders: ${firstLine(error)}`);
  }
  try {
    // Reverse DNS due to be written (or retried): never in the way of an order, whatever DNS does.
    await syncPtrs();
  } catch (error) {
    logThrottled("rdns", `reverse DNS: ${firstLine(error)}`);
  }
  try {
    await pruneWhenDue();
  } catch (error) {
    logThrottled("retention", `pruning finished jobs and old idempotency keys: ${firstLine(error)}`);
  }
}

/**
 * Starts the periodic pass once per process (from instrumentation), and the watchers' push links; passes
 * never overlap, nor do two polls of one watcher. Usage sampling
 * and the delivery of notifications run on timers of their own, so a slow host or a slow receiver never
 * delays the deposit watchers.
 */
export function startBackgroundWork(): void {
  releaseWatcherLeasesOnShutdown();
  // An x402-paid order is settled as soon as its server answers, not at the next pass.
  processWide("background.held-payments", () => {
    onHeldPaymentsDue(() => {
      settleDueOrderPayments().catch((error: unknown) =>
        logThrottled("x402-orders", `settling x402-paid orders: ${firstLine(error)}`),
      );
    });
    return true;
  });
  startPushLinks();
  startMetricsSampling();
  startDeliveryWorker();
  processWide("background.runner", () => {
    let running = false;
    const timer = setInterval(async () => {
      if (running) return;
      running = true;
      try {
        await runBackgroundPass();
      } finally {
        running = false;
      }
    }, depositSettings().watcherIntervalMs);
    timer.unref();
    return timer;
  });
}
