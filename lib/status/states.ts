/**
 * The states the status page shows for hosts and deposit watchers, from what is recorded of them. Pure.
 */

export type State = "up" | "degraded" | "down";

/** A host whose every reading has failed for this long is down; before that it is degraded. */
export const HOST_DOWN_AFTER_MS = 2 * 60_000;

/**
 * A host from its last readings (lib/servers/host-readings.ts): up while its last reading answered and is
 * recent (within `staleMs`), degraded when readings have failed for less than HOST_DOWN_AFTER_MS or none is
 * recent (nothing read it lately: the background is behind or not running), down when they have failed longer.
 */
export function hostState(
  reading: { readAt: Date | null; failingSince: Date | null } | undefined,
  at: Date,
  staleMs: number,
): State {
  if (reading?.failingSince) {
    return at.getTime() - reading.failingSince.getTime() >= HOST_DOWN_AFTER_MS ? "down" : "degraded";
  }
  if (!reading?.readAt || at.getTime() - reading.readAt.getTime() > staleMs) return "degraded";
  return "up";
}

/**
 * A deposit watcher from its health: its node answered and is current; it is starting, has not polled lately or
 * its node is behind its network; or its node fails.
 */
export function watcherState(status: "ok" | "unreachable" | "stale" | "starting" | "behind"): State {
  if (status === "ok") return "up";
  return status === "unreachable" ? "down" : "degraded";
}

/** A group of hosts (a location's): up when every one is, down when none is, degraded in between. */
export function groupState(states: readonly State[]): State {
  if (states.every((state) => state === "up")) return "up";
  return states.some((state) => state !== "down") ? "degraded" : "down";
}

/**
 * The whole service: down when hosts exist and no location has one up (no order can be built), degraded when a
 * location or a watcher is not up, up otherwise. A coin whose watcher is down leaves the others working.
 */
export function overallState(locations: readonly State[], watchers: readonly State[]): State {
  if (locations.length > 0 && locations.every((state) => state === "down")) return "down";
  return [...locations, ...watchers].every((state) => state === "up") ? "up" : "degraded";
}
