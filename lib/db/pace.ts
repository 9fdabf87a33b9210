import "server-only";
import { performance } from "node:perf_hooks";
import { setImmediate, setTimeout } from "node:timers/promises";
import { servingRequests } from "@/lib/util/activity";
import { processWide } from "@/lib/util/process-wide";
import { databaseHandle } from "./client";

/** Background work may run this long without a pause on the embedded database... */
export const SLICE_MS = 10;
/** ...then rests this long, so it never takes more than about a quarter of the process... */
export const REST_MS = 30;
/** ...or about a tenth while requests are being served, so their answers wait on it as little as can be. */
export const REST_SERVING_MS = 90;
/** A longer gap between two calls was waiting (a pause between passes, a host call), not work. */
export const IDLE_MS = 1_000;

type PaceDeps = {
  /** Whether the database runs on this thread (PGlite). */
  embedded: () => Promise<boolean>;
  /** Whether requests are being served now (lib/util/activity.ts). */
  serving: () => boolean;
  clock: () => number;
  rest: (ms: number) => Promise<unknown>;
  turn: () => Promise<unknown>;
};

/**
 * Builds the function background loops call between rows and batches. Requests that arrived meanwhile
 * run first (their queries queue ahead of the next row's). On PGlite, queries run on this very thread, so
 * background work also rests after every slice of busy time, three times as long while requests are being
 * served. PostgreSQL does the work elsewhere, so a turn is enough, except while requests are served: then
 * background work rests after each slice too, as its statements and their results share the database's
 * and this process's cores with the requests'.
 */
export function createPace(deps: PaceDeps): () => Promise<void> {
  let last = Number.NEGATIVE_INFINITY;
  let busy = 0;
  return async () => {
    const since = deps.clock() - last;
    busy = since > IDLE_MS ? 0 : busy + since;
    const serving = deps.serving();
    if (busy >= SLICE_MS && (serving || (await deps.embedded()))) {
      await deps.rest(serving && (await deps.embedded()) ? REST_SERVING_MS : REST_MS);
      busy = 0;
    } else {
      await deps.turn();
    }
    last = deps.clock();
  };
}

/** The process's pace for background work (see createPace). */
export function pace(): Promise<void> {
  return processWide("background.pace", () =>
    createPace({
      embedded: async () => (await databaseHandle()).kind === "pglite",
      serving: () => servingRequests(),
      clock: () => performance.now(),
      rest: (ms) => setTimeout(ms),
      turn: () => setImmediate(),
    }),
  )();
}
