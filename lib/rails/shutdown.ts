import "server-only";
import { releaseLease } from "@/lib/db/lease";
import { holdExitUntil } from "@/lib/util/exit-hold";
import { processWide } from "@/lib/util/process-wide";
import { depositRails } from "./setup";

const state = () => processWide("deposits.shutdown", () => ({ stopping: false }));

/** True once the process is shutting down: watchers take no lease and poll no more. */
export const watchersStopping = (): boolean => state().stopping;

/** How long the process's exit waits for the leases to be given back. */
const RELEASE_TIMEOUT_MS = 3_000;

/**
 * On SIGTERM or SIGINT, stops the watchers and their push links and gives back every watcher lease this instance holds, so
 * another instance takes over at its next pass instead of waiting for the lease to run out. The server's
 * own handler exits as soon as HTTP is closed, usually before a database write completes, so its
 * `process.exit` is held until the leases are released (at most RELEASE_TIMEOUT_MS).
 */
export function releaseWatcherLeasesOnShutdown(): void {
  processWide("deposits.shutdown.handler", () => {
    const release = (signal: NodeJS.Signals) => {
      if (state().stopping) return;
      state().stopping = true;
      // No more notices: the links' sockets would otherwise wake polls while the process ends.
      try {
        for (const watcher of depositRails().watchers) watcher.push?.stop().catch(() => undefined);
      } catch {
        // No watchers were built: nothing to stop.
      }
      const released = Promise.race([
        Promise.all(depositRails().watchers.map((watcher) => releaseLease(watcher.name))).catch((error) =>
          console.error(`watcher leases not released: ${(error as Error).message}`),
        ),
        new Promise((resolve) => setTimeout(resolve, RELEASE_TIMEOUT_MS).unref()),
      ]);
      const exiting = holdExitUntil(released);
      released.finally(() => {
        // Without another handler (the server's), the signal still ends the process.
        if (!exiting() && process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    };
    process.once("SIGTERM", release);
    process.once("SIGINT", release);
    return release;
  });
}
