import "server-only";
import { ApiError } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { limiters, withQuotas } from "@/lib/rate-limit/limits";
import { type JobInFlight, jobInFlight } from "./jobs";

/**
 * What one account may ask of the hosts. Power actions, root password changes, reinstalls, snapshots (taken,
 * restored, deleted) and rescue mode and resizes each start virsh (and openssl) on a hypervisor: a server does one such operation at a time, and an account starts
 * at most RATE_LIMIT_HOST_OPERATIONS of them per window.
 */

/** How a busy server's operation is named: power actions by their action, other work by its kind. */
const operationOf = (job: JobInFlight) => job.action ?? job.kind;

const DESCRIBED: Record<string, string> = {
  start: "a start",
  stop: "a stop",
  reboot: "a reboot",
  password: "a root password change",
  reinstall: "a reinstall",
  provision: "its build",
  destroy: "its removal",
  snapshot: "a snapshot",
  restore: "a restore",
  delete_snapshot: "a snapshot's removal",
  rescue: "starting rescue mode",
  leave_rescue: "leaving rescue mode",
  revive: "coming back on its last disk",
  firewall: "applying its firewall",
  resize: "a resize",
};

/** 409 naming what the server is busy with, and since when. */
export function serverBusy(job: JobInFlight): ApiError {
  const operation = operationOf(job);
  const since = job.createdAt.toISOString();
  return new ApiError(
    409,
    "server_busy",
    `This server is busy with ${DESCRIBED[operation] ?? operation} (since ${since}); try again once it has finished.`,
    { operation, since },
  );
}

/** Refuses with 409 server_busy while the server has host work queued or running (its row locked in `tx`). */
export async function refuseWhileBusy(tx: Tx, serverId: number): Promise<void> {
  const job = await jobInFlight(tx, serverId);
  if (job) throw serverBusy(job);
}

/**
 * Runs one host operation of the account under its limit: past it, 429 with Retry-After before anything is
 * looked at or queued. A request refused for its own reasons (4xx: not active, busy, ...) is given back; one
 * that reached the host counts, whatever the host answered.
 */
export function withHostQuota<T>(accountId: number, work: () => Promise<T>): Promise<T> {
  return withQuotas(limiters().hostOperations, [`account:${accountId}`], work, (outcome) =>
    "error" in outcome ? !(outcome.error instanceof ApiError && outcome.error.status < 500) : true,
  );
}
