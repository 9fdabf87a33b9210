import { performance } from "node:perf_hooks";
import { processWide } from "@/lib/util/process-wide";

/**
 * Whether the API is serving requests right now: background work gives way while it is (lib/db/
 * pace.ts). A request counts from its start until QUIET_MS after its answer, so a steady stream of short
 * requests reads as one busy stretch rather than as gaps between them.
 */
export const QUIET_MS = 100;

const state = () => processWide("http.activity", () => ({ inFlight: 0, lastEnd: Number.NEGATIVE_INFINITY }));

export async function servingRequest<T>(handle: () => Promise<T>): Promise<T> {
  const activity = state();
  activity.inFlight += 1;
  try {
    return await handle();
  } finally {
    activity.inFlight -= 1;
    activity.lastEnd = performance.now();
  }
}

export function servingRequests(at = performance.now()): boolean {
  const activity = state();
  return activity.inFlight > 0 || at - activity.lastEnd < QUIET_MS;
}
