import "server-only";
import { config } from "@/lib/config/env";
import { acquireLease } from "@/lib/db/lease";
import { expireDueTopups, settleOutstandingTopups, settleTopups } from "@/lib/deposits/crediting";
import { recordWatcherError } from "@/lib/deposits/cursor";
import { depositRails } from "@/lib/deposits/setup";
import { firstLine } from "@/lib/log";
import { processWide } from "@/lib/process-wide";
import { runServerLifecycle } from "@/lib/servers/lifecycle";

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
 * One pass of background work: every watcher whose lease we hold polls its chain, then top-up expiry, then
 * the server lifecycle (provisioning, renewals, suspensions, terminations).
 */
export async function runBackgroundPass(): Promise<void> {
  const { watcherIntervalMs } = config().deposits;
  for (const watcher of depositRails().watchers) {
    try {
      if (!(await acquireLease(watcher.name, Math.max(30_000, watcherIntervalMs * 4)))) continue;
      let touched: number[];
      try {
        touched = await watcher.poll();
      } catch (error) {
        const reason = describeFailure(error);
        await recordWatcherError(watcher.name, reason);
        logThrottled(watcher.name, `watcher ${watcher.name}: ${reason}`);
        continue;
      }
      await settleTopups(touched);
    } catch (error) {
      logThrottled(watcher.name, `watcher ${watcher.name}: ${firstLine(error)}`);
    }
  }
  try {
    await settleOutstandingTopups();
    await expireDueTopups();
  } catch (error) {
    logThrottled("expiry", `top-up expiry: ${firstLine(error)}`);
  }
  try {
    await runServerLifecycle();
  } catch (error) {
    logThrottled("servers", `server lifecycle: ${firstLine(error)}`);
  }
}

/** Starts the periodic pass once per process (from instrumentation); passes never overlap. */
export function startBackgroundWork(): void {
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
    }, config().deposits.watcherIntervalMs);
    timer.unref();
    return timer;
  });
}
