import "server-only";
import { and, asc, eq, inArray, lt, lte, or, sql } from "drizzle-orm";
import { config } from "@/lib/config/env";
import { type Database, db, type Tx } from "@/lib/db/client";
import { pace } from "@/lib/db/pace";
import { serverJobs, servers, snapshots } from "@/lib/db/schema";
import type { JobKind } from "@/lib/db/types";
import { recordBuildDone } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { endFailedBuild, endFailedRevival } from "./billing";
import { serverSettings } from "./config";
import { CustomerFacingError, customerReason, HOST_UNREACHABLE } from "./failure-reasons";
import { announceHeldPaymentsDue, markHeldPaymentDue } from "./held-payments";
import { applyServerNetwork, runFirewallJob } from "./network/firewall";
import { ipv6PoolOf, releaseIpv6Prefix, reserveIpv6Prefix } from "./network/ipv6-pool";
import { ensureDefaultPtrs, kickPtrSync, resetServerPtrs } from "./network/rdns";
import { recordOrderOutcome } from "./order-outcomes";
import type { ServerRow } from "./present";
import {
  allocatePoolAddress,
  type Built,
  DISK_COPY_TIMEOUT_MS,
  type PowerAction,
  provisioner,
  releaseAddress,
  reserveHostAddress,
} from "./provisioner";
import { endFailedLeaveRescue, endFailedRescue, runEnterRescue, runLeaveRescue } from "./rescue";
import { endFailedResize, runResize } from "./resize/jobs";
import { completeRevival, recordKeptDisk, reviveOnHost } from "./retention";
import { lockServer, serverRow } from "./rows";
import { decryptRootPassword } from "./secrets";
import {
  endFailedRestore,
  failSnapshot,
  restoreOnHost,
  runDeleteSnapshot,
  runSnapshot,
  snapshotAtRest,
} from "./snapshots/jobs";
import { openUserData } from "./user-data";

export type { JobKind };
export type Job = typeof serverJobs.$inferSelect;

const MAX_ATTEMPTS: Record<JobKind, number> = {
  provision: 3,
  power: 3,
  destroy: 10,
  reinstall: 3,
  password: 1,
  // A copy that failed twice will fail again: the snapshot is marked failed and its space given back.
  snapshot: 2,
  restore: 3,
  delete_snapshot: 10,
  rescue: 2,
  leave_rescue: 3,
  revive: 3,
  // A host that refuses the table keeps refusing; the owner sees its words meanwhile (firewall `error`).
  firewall: 5,
  resize: 3,
};
/** A running job not finished by then was abandoned by its worker (the process died) and is taken again. */
const LEASE_MS = 15 * 60_000;
/** Jobs that copy a whole disk hold their lease for as long as the longest copy may take. */
const COPYING: ReadonlySet<JobKind> = new Set(["snapshot", "restore", "reinstall", "resize"]);
const leaseFor = (kind: JobKind) => (COPYING.has(kind) ? DISK_COPY_TIMEOUT_MS + LEASE_MS : LEASE_MS);
/** How often a booting machine is probed for its SSH server (the status page says so beside the figure). */
export const BOOT_POLL_MS = 2_000;
const backoffMs = (attempts: number) => Math.min(5_000 * 2 ** (attempts - 1), 120_000);

/** What a failed job records for the operator (log and `last_error`): the first line of the error, bounded. */
const failureReason = (error: unknown) => firstLine(error).slice(0, 300) || "failed";

/** Records host work for a server inside the caller's transaction; a worker performs it after commit. */
export async function enqueueJob(
  tx: Tx,
  serverId: number,
  kind: JobKind,
  options: { action?: PowerAction; runAfter?: Date; snapshotId?: number } = {},
): Promise<number> {
  const [job] = await tx
    .insert(serverJobs)
    .values({
      serverId,
      kind,
      action: options.action ?? null,
      snapshotId: options.snapshotId ?? null,
      maxAttempts: MAX_ATTEMPTS[kind],
      runAfter: options.runAfter ?? now(),
    })
    .returning({ id: serverJobs.id });
  if (!job) throw new Error("job insert returned no row");
  return job.id;
}

/**
 * Takes one due job (or the given one) with SKIP LOCKED, marks it running under a lease and commits: the
 * host call that follows runs with no transaction open. A server's jobs run in order, one at a time.
 */
async function takeJob(onlyId?: number): Promise<Job | undefined> {
  const database = await db();
  return database.transaction(async (tx) => {
    const current = now();
    const [job] = await tx
      .select()
      .from(serverJobs)
      .where(
        and(
          onlyId === undefined ? undefined : eq(serverJobs.id, onlyId),
          or(
            and(eq(serverJobs.state, "pending"), lte(serverJobs.runAfter, current)),
            and(eq(serverJobs.state, "running"), lt(serverJobs.leaseUntil, current)),
          ),
          sql`NOT EXISTS (SELECT 1 FROM server_jobs earlier WHERE earlier.server_id = ${serverJobs.serverId}
                AND earlier.id < ${serverJobs.id} AND earlier.state IN ('pending', 'running'))`,
        ),
      )
      .orderBy(asc(serverJobs.runAfter), asc(serverJobs.id))
      .limit(1)
      .for("update", { skipLocked: true });
    if (!job) return undefined;
    const [taken] = await tx
      .update(serverJobs)
      .set({
        state: "running",
        // Polling a booting machine is not a new attempt at building it.
        attempts: job.phase === "boot" ? job.attempts : job.attempts + 1,
        leaseUntil: new Date(current.getTime() + leaseFor(job.kind)),
      })
      .where(eq(serverJobs.id, job.id))
      .returning();
    return taken;
  });
}

export const finish = (tx: Tx, job: Job, state: "done" | "failed", lastError?: string) =>
  tx
    .update(serverJobs)
    .set({ state, finishedAt: now(), leaseUntil: null, ...(lastError ? { lastError } : {}) })
    .where(eq(serverJobs.id, job.id));

/** Puts a job back in the queue for a later pass. */
export const requeue = (tx: Tx, job: Job, changes: Partial<Job>) =>
  tx
    .update(serverJobs)
    .set({ state: "pending", leaseUntil: null, ...changes })
    .where(eq(serverJobs.id, job.id));

/**
 * A server that left `provisioning` while its build ran (terminated): the machine is removed again. A
 * reinstall is a build on the same server: the server is `provisioning` meanwhile and keeps its address.
 */
async function abandonBuild(tx: Tx, job: Job, server: ServerRow) {
  await finish(tx, job, "done");
  if (server.status === "terminated" && !provisioner().simulated) await enqueueJob(tx, server.id, "destroy");
}

/** Waits for a built machine's SSH server: the server turns `active` once it answers, or the build fails. */
async function waitForBoot(job: Job, server: ServerRow): Promise<void> {
  const database = await db();
  const up = await provisioner().ready(server);
  const current = now();
  if (!up && job.deadline && job.deadline < current) {
    throw new BuildError(`the machine did not answer on SSH within ${serverSettings().bootTimeoutSeconds} s`);
  }
  await database.transaction(async (tx) => {
    const row = await lockServer(tx, server.id);
    if (row.status !== "provisioning") return abandonBuild(tx, job, row);
    if (!up) return requeue(tx, job, { runAfter: new Date(current.getTime() + BOOT_POLL_MS) });
    await markBuilt(tx, job, row, {}, current);
  });
  if (up && job.kind === "provision") announceHeldPaymentsDue();
}

/**
 * A build is done: the server is active and running (a revived one with its new period). An order's build
 * leaves its outcome for the status page, with when the machine's SSH server answered (`sshAnsweredAt`).
 */
async function markBuilt(
  tx: Tx,
  job: Job,
  row: ServerRow,
  changes: Partial<ServerRow> = {},
  sshAnsweredAt: Date | null = null,
) {
  await tx
    .update(servers)
    .set({
      ...changes,
      ...(job.kind === "revive" ? await completeRevival(tx, row) : {}),
      status: "active",
      powerState: "running",
      statusReason: null,
      // The owner's user data has reached the machine: only its hash and size are kept from here on.
      userDataEnc: null,
    })
    .where(eq(servers.id, row.id));
  await finish(tx, job, "done");
  if (job.kind === "provision") {
    await recordOrderOutcome(tx, row, { succeeded: true, sshAnsweredAt });
    // Built and answering: an order paid with x402 is settled now (the background's next pass).
    await markHeldPaymentDue(tx, row.id);
  }
  await recordBuildDone(tx, job);
}

/**
 * What a build does on the host: a new disk (provision, reinstall, the latter after a snapshot unless told
 * not to), a snapshot's copy (restore), or the kept disk of a lapsed server (revive). `hostKeyFingerprint`
 * undefined: the machine keeps the host key it had.
 */
async function buildOnHost(
  job: Job,
  target: ServerRow,
): Promise<Omit<Built, "hostKeyFingerprint"> & { hostKeyFingerprint?: string | null }> {
  if (job.kind === "restore") return restoreOnHost(job, target);
  if (!target.rootPasswordEnc) throw new Error("the server has no root password");
  const spec = {
    server: target,
    rootPassword: decryptRootPassword(config().encryptionKey, target.id, target.rootPasswordEnc),
    sshKeys: target.sshKeys ? (JSON.parse(target.sshKeys) as string[]) : [],
  };
  if (job.kind === "revive") return reviveOnHost(spec);
  if (job.kind === "reinstall" && job.snapshotId !== null) await snapshotAtRest(job, target);
  const { userDataEnc } = target;
  return provisioner().create({
    ...spec,
    userData: userDataEnc ? openUserData(config().encryptionKey, target.id, userDataEnc) : undefined,
  });
}

/** Runs a build (provision, reinstall, restore, revive): the host work, then the wait for SSH. */
async function runBuild(job: Job): Promise<void> {
  const database = await db();
  const server = await serverRow(job.serverId);
  if (server.status !== "provisioning") {
    await database.transaction((tx) => abandonBuild(tx, job, server));
    return;
  }
  if (job.phase === "boot") return waitForBoot(job, server);
  const target = await reserveBuildAddresses(server);
  // Its firewall is on the host before the machine first runs.
  await applyServerNetwork(target);
  const built = await buildOnHost(job, target);
  await database.transaction(async (tx) => {
    const row = await lockServer(tx, server.id);
    if (row.status !== "provisioning") return abandonBuild(tx, job, row);
    // A reinstall (or a retried build) keeps the address the server already has.
    const ip = built.ip ?? row.ip ?? (await allocatePoolAddress(tx, row.location));
    const address = {
      ip,
      sshPort: built.sshPort,
      ...(built.hostKeyFingerprint === undefined ? {} : { sshHostKeyFingerprint: built.hostKeyFingerprint }),
    };
    await ensureDefaultPtrs(tx, { ...row, ip });
    // A simulated machine is up at once.
    if (provisioner().simulated) return markBuilt(tx, job, row, address);
    await tx.update(servers).set(address).where(eq(servers.id, row.id));
    const current = now();
    await requeue(tx, job, {
      phase: "boot",
      runAfter: new Date(current.getTime() + BOOT_POLL_MS),
      deadline: new Date(current.getTime() + serverSettings().bootTimeoutSeconds * 1000),
    });
  });
  kickPtrSync();
  if (provisioner().simulated && job.kind === "provision") announceHeldPaymentsDue();
}

/**
 * The addresses a build's seed carries, reserved before it: a bridged host's public IPv4, and the server's /64
 * where its host (or the simulated plan) hands out IPv6. A reinstall or a retry keeps what the server has.
 */
async function reserveBuildAddresses(server: ServerRow): Promise<ServerRow> {
  const network = serverSettings().hypervisors.find((host) => host.name === server.hypervisor)?.network;
  const needsIp = Boolean(network) && !server.ip;
  const needsIpv6 = !server.ipv6Prefix && ipv6PoolOf(server) !== undefined;
  if (!needsIp && !needsIpv6) return server;
  const database = await db();
  return database.transaction(async (tx) => {
    const row = await lockServer(tx, server.id);
    const ip = network && !row.ip ? await reserveHostAddress(tx, row, network) : row.ip;
    const ipv6Prefix = await reserveIpv6Prefix(tx, row);
    return { ...row, ip, ipv6Prefix, ...(network ? { sshPort: 22 } : {}) };
  });
}

export class BuildError extends CustomerFacingError {}

async function runPower(job: Job): Promise<void> {
  const server = await serverRow(job.serverId);
  const database = await db();
  if (server.status === "terminated" || server.status === "provisioning") {
    await database.transaction((tx) => finish(tx, job, "done"));
    return;
  }
  if (!job.action) throw new Error(`power job ${job.id} has no action`);
  // A start (or a reboot of a stopped machine) runs behind the server's firewall.
  if (job.action !== "stop") await applyServerNetwork(server);
  const state = await provisioner().power(server, job.action);
  await database.transaction(async (tx) => {
    const row = await lockServer(tx, server.id);
    if (row.status !== "terminated") {
      await tx.update(servers).set({ powerState: state }).where(eq(servers.id, row.id));
    }
    await finish(tx, job, "done");
  });
}

/**
 * Removes the machine; only then are its address and port free for another server (a failure keeps them). A
 * server whose period lapsed keeps its disk (and its snapshots) while `retained_until` lies ahead; otherwise
 * its snapshots go with it.
 */
async function runDestroy(job: Job): Promise<void> {
  const server = await serverRow(job.serverId);
  const database = await db();
  const retain = server.status === "terminated" && server.retainedUntil !== null;
  const taken = retain
    ? []
    : await database.select().from(snapshots).where(eq(snapshots.serverId, server.id));
  let keptBytes: number | null = null;
  if (server.hypervisor || provisioner().simulated) {
    ({ keptBytes } = await provisioner().destroy(server, { keepDisk: retain }));
    // With the machine gone, so is what filtered and routed its traffic.
    await provisioner().removeNetwork(server);
    for (const snapshot of taken) {
      if (snapshot.kind !== "expiry" && snapshot.volume) {
        await provisioner().deleteSnapshot(server, snapshot.volume);
      }
    }
  }
  await database.transaction(async (tx) => {
    await finish(tx, job, "done");
    await resetServerPtrs(tx, server.id);
    await releaseAddress(tx, server.id);
    // The /64 stays with a kept disk, to come back with it.
    if (!retain) await releaseIpv6Prefix(tx, server.id);
    if (retain) await recordKeptDisk(tx, server, keptBytes);
    else if (taken.length > 0) await tx.delete(snapshots).where(eq(snapshots.serverId, server.id));
  });
  kickPtrSync();
}

/**
 * What a provisioning server shows between its build's attempts (markBuilt clears it). `refundAt`: the build
 * waits for an unreachable host until then, however many attempts that takes.
 */
export function buildRetryReason(
  job: Pick<Job, "attempts" | "maxAttempts">,
  reason: string,
  runAfter: Date,
  refundAt?: Date,
): string {
  if (refundAt) {
    return (
      `Attempt ${job.attempts} to build it failed (${reason}); the next starts at ${runAfter.toISOString()}. ` +
      `Should the host still be unreachable at ${refundAt.toISOString()}, the charge is refunded.`
    );
  }
  return (
    `Attempt ${job.attempts} of ${job.maxAttempts} to build it failed (${reason}); the next starts at ` +
    `${runAfter.toISOString()}. Should every attempt fail, the charge is refunded.`
  );
}

/**
 * Until when a build that failed for `reason` keeps trying: a host that cannot be reached (restarting, cut off
 * for a minute) is waited for up to BUILD_HOST_WAIT_SECONDS from the order, past the job's attempts; null when
 * that does not apply or has passed. Wall-clock time, as the job's creation is: an outage is not business
 * time (which tests move).
 */
function hostWaitUntil(job: Job, reason: string): Date | null {
  if (job.kind !== "provision" || reason !== HOST_UNREACHABLE) return null;
  const until = new Date(job.createdAt.getTime() + serverSettings().buildHostWaitSeconds * 1000);
  return until.getTime() > Date.now() ? until : null;
}

/**
 * A failed attempt: retried later with backoff, or, after the last attempt, failed for good. A build that
 * fails for good ends the server `terminated` with its charge refunded and the reason given.
 */
async function recordFailure(job: Job, error: unknown): Promise<void> {
  const message = failureReason(error);
  // The customer reads a fixed reason; the host's own words stay in the log and the job row.
  const reason = customerReason(error);
  console.error(
    `server ${job.serverId}: ${job.kind} job ${job.id} attempt ${job.attempts} failed: ${message}`,
  );
  const database = await db();
  const waitUntil = hostWaitUntil(job, reason);
  await database.transaction(async (tx) => {
    if (job.attempts < job.maxAttempts || waitUntil) {
      // The last try for an unreachable host comes when its wait ends, not later.
      const waitLeftMs = waitUntil ? waitUntil.getTime() - Date.now() : Number.POSITIVE_INFINITY;
      const runAfter = new Date(now().getTime() + Math.min(backoffMs(job.attempts), waitLeftMs));
      await requeue(tx, job, { lastError: message, phase: null, deadline: null, runAfter });
      // An order whose build waits for another attempt says so: a host outage is not a silent wait.
      if (job.kind === "provision") {
        await tx
          .update(servers)
          .set({ statusReason: buildRetryReason(job, reason, runAfter, waitUntil ?? undefined) })
          .where(and(eq(servers.id, job.serverId), eq(servers.status, "provisioning")));
      }
      return;
    }
    await finish(tx, job, "failed", message);
    if (job.kind === "reinstall") return endFailedReinstall(tx, job, reason);
    if (job.kind === "restore") return endFailedRestore(tx, job, reason);
    if (job.kind === "revive") return endFailedRevival(tx, job, reason);
    if (job.kind === "snapshot") return failSnapshot(tx, job.snapshotId, reason);
    if (job.kind === "rescue") return endFailedRescue(tx, job, reason);
    if (job.kind === "leave_rescue") return endFailedLeaveRescue(tx, job, reason);
    if (job.kind === "provision") return endFailedBuild(tx, job, reason);
    if (job.kind === "resize") return endFailedResize(tx, job, reason);
  });
}

/**
 * A rewrite of the disk (a reinstall, a restore) that failed for good: the server is `active` again, stopped
 * (paid time is not touched, nothing is refunded), and `statusReason` says why and what to do.
 */
export async function endFailedDiskRewrite(tx: Tx, job: Job, statusReason: string): Promise<void> {
  const row = await lockServer(tx, job.serverId);
  if (row.status !== "provisioning") return;
  await tx
    .update(servers)
    .set({ status: "active", powerState: "stopped", statusReason })
    .where(eq(servers.id, row.id));
}

/** A reinstall that failed for good: the owner can try again. */
async function endFailedReinstall(tx: Tx, job: Job, reason: string) {
  // A snapshot the reinstall was to take first, and did not, holds nothing.
  if (job.snapshotId !== null) await failSnapshot(tx, job.snapshotId, reason);
  await endFailedDiskRewrite(
    tx,
    job,
    `The reinstall failed after ${job.attempts} attempts (${reason}); reinstall again.`,
  );
}

/**
 * A password change whose request ended (its process died) before it finished: the worker only closes it,
 * since the password itself was never stored where a worker could read it.
 */
async function closeAbandonedRequestJob(job: Job): Promise<void> {
  const database = await db();
  await database.transaction((tx) =>
    finish(tx, job, "failed", "the request running it ended before the host answered"),
  );
}

const RUNNERS: Record<JobKind, (job: Job) => Promise<void>> = {
  provision: runBuild,
  reinstall: runBuild,
  restore: runBuild,
  revive: runBuild,
  power: runPower,
  password: closeAbandonedRequestJob,
  destroy: runDestroy,
  snapshot: runSnapshot,
  delete_snapshot: runDeleteSnapshot,
  rescue: runEnterRescue,
  leave_rescue: runLeaveRescue,
  firewall: runFirewallJob,
  resize: runResize,
};

async function execute(job: Job): Promise<void> {
  try {
    await RUNNERS[job.kind](job);
  } catch (error) {
    await recordFailure(job, error);
  }
}

/** Performs due jobs until none is left or `max` were run, giving requests their turn between jobs. */
export async function runDueJobs(max = 25): Promise<number> {
  let count = 0;
  while (count < max) {
    await pace();
    const job = await takeJob();
    if (!job) break;
    await execute(job);
    count++;
  }
  return count;
}

/** Starts a pass over due jobs now (after an order or termination) rather than at the next tick. */
export function kickJobs(): void {
  const state = processWide("servers.jobs.kick", () => ({ running: false, again: false }));
  if (state.running) {
    state.again = true;
    return;
  }
  state.running = true;
  void (async () => {
    try {
      do {
        state.again = false;
        await runDueJobs();
      } while (state.again);
    } catch (error) {
      console.error(`server jobs: ${failureReason(error)}`);
    } finally {
      state.running = false;
    }
  })();
}

/** runJobNow looks again after this long, doubling up to the cap: a slow stop is not polled 4 times a second. */
const WAIT_FIRST_MS = 100;
const WAIT_CAP_MS = 2_000;

/**
 * Runs one job now if no worker holds it, else waits for whoever does, looking less often the longer it
 * takes; gives up waiting after `waitMs` (the job still finishes in the background). Returns whether it finished.
 */
export async function runJobNow(jobId: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  const database = await db();
  let pause = WAIT_FIRST_MS;
  while (Date.now() < deadline) {
    const job = await takeJob(jobId);
    if (job) await execute(job);
    const [row] = await database
      .select({ state: serverJobs.state })
      .from(serverJobs)
      .where(eq(serverJobs.id, jobId));
    if (!row || row.state === "done" || row.state === "failed") return true;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pause, deadline - Date.now()))));
    pause = Math.min(pause * 2, WAIT_CAP_MS);
  }
  return false;
}

export type JobInFlight = Pick<Job, "id" | "kind" | "action" | "createdAt">;

/** The server's oldest job still queued or running, if any (call it with the server row locked). */
export async function jobInFlight(tx: Tx, serverId: number): Promise<JobInFlight | undefined> {
  const [job] = await tx
    .select({
      id: serverJobs.id,
      kind: serverJobs.kind,
      action: serverJobs.action,
      createdAt: serverJobs.createdAt,
    })
    .from(serverJobs)
    .where(and(eq(serverJobs.serverId, serverId), inArray(serverJobs.state, ["pending", "running"])))
    .orderBy(asc(serverJobs.id))
    .limit(1);
  return job;
}

/**
 * Records host work the request runs itself (a password change) as running under a lease of `leaseMs`: other
 * requests see it in flight, and the worker neither runs the server's later jobs meanwhile nor takes this one
 * (unless the lease passes, when it only closes it).
 */
export async function startRequestJob(tx: Tx, serverId: number, kind: JobKind, leaseMs: number) {
  const current = now();
  const [job] = await tx
    .insert(serverJobs)
    .values({
      serverId,
      kind,
      state: "running",
      attempts: 1,
      maxAttempts: MAX_ATTEMPTS[kind],
      runAfter: current,
      leaseUntil: new Date(current.getTime() + leaseMs),
    })
    .returning({ id: serverJobs.id });
  if (!job) throw new Error("job insert returned no row");
  return job.id;
}

/** Ends a job its request ran, with what the operator should know when it failed. */
export async function finishRequestJob(tx: Tx, jobId: number, state: "done" | "failed", lastError?: string) {
  await tx
    .update(serverJobs)
    .set({
      state,
      finishedAt: now(),
      leaseUntil: null,
      ...(lastError ? { lastError: lastError.slice(0, 300) } : {}),
    })
    .where(eq(serverJobs.id, jobId));
}

/** Deletes up to `batch` jobs that finished before `before`, oldest first; returns how many. */
export async function pruneFinishedJobs(database: Database, before: Date, batch: number): Promise<number> {
  const old = database
    .select({ id: serverJobs.id })
    .from(serverJobs)
    .where(and(inArray(serverJobs.state, ["done", "failed"]), lt(serverJobs.finishedAt, before)))
    .orderBy(asc(serverJobs.finishedAt))
    .limit(batch);
  const deleted = await database
    .delete(serverJobs)
    .where(inArray(serverJobs.id, old))
    .returning({ id: serverJobs.id });
  return deleted.length;
}

/** Whether a server has host work still queued or running (its power state is then in flux). */
export async function unfinishedJobServers(ids: number[], database?: Database): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  database ??= await db();
  const rows = await database
    .select({ serverId: serverJobs.serverId })
    .from(serverJobs)
    .where(and(inArray(serverJobs.serverId, ids), inArray(serverJobs.state, ["pending", "running"])));
  return new Set(rows.map((row) => row.serverId));
}
