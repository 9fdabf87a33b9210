/**
 * Copies of a server's disk inside its host's storage pool, through the host's libvirt URI only (so a remote
 * host works like this machine). Every copy is self-contained: a qcow2 volume with no backing file, holding
 * what the guest sees (the OS image's blocks and the server's own), so it outlives the disk it came from, the
 * OS image it was built on, and every other snapshot.
 *
 * - A disk at rest is cloned by libvirt (`vol-clone`, which runs `qemu-img convert` on the host).
 * - A running machine's disk is mirrored while the guest keeps running (`blockcopy` into a new volume); once
 *   the mirror has caught up, the guest agent freezes the guest's filesystems where it answers, the mirror is
 *   ended (the copy then holds the disk as it was at that instant) and the filesystems are thawed. The guest is
 *   never paused; without an answering agent the copy is crash-consistent.
 */
import type { SnapshotConsistency } from "@/lib/db/types";
import { VirshError, virsh } from "./virsh";

export type VolumeSize = { capacity: number; allocation: number };

/** `Capacity: N bytes` and `Allocation: N bytes` of `virsh vol-info --bytes`. */
export function parseVolumeInfo(output: string): VolumeSize {
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) bytes`, "m").exec(output);
    if (!match?.[1]) throw new Error(`vol-info: no ${name.toLowerCase()} in its output`);
    return Number(match[1]);
  };
  return { capacity: field("Capacity"), allocation: field("Allocation") };
}

export async function volumeSize(uri: string, pool: string, volume: string): Promise<VolumeSize> {
  return parseVolumeInfo(await virsh(uri, ["vol-info", "--pool", pool, volume, "--bytes"]));
}

/** What `virsh domfsfreeze` did: froze the filesystems, found no agent to ask, or may have (cut off, odd error). */
export type FreezeOutcome = "frozen" | "no_agent" | "unknown";

/** virsh's words for a guest without an answering agent: nothing was frozen. */
const NO_AGENT = /guest agent is not (connected|responding|configured)|agent is not|QEMU guest agent/i;

export function freezeOutcome(error: unknown): FreezeOutcome {
  if (error instanceof VirshError && !error.timedOut && NO_AGENT.test(error.stderr)) return "no_agent";
  return "unknown";
}

/** Freezes the guest's filesystems through its agent, for at most `timeoutMs`. */
async function freeze(uri: string, domain: string, timeoutMs: number): Promise<FreezeOutcome> {
  try {
    const said = await virsh(uri, ["domfsfreeze", domain], { timeoutMs });
    return /^Froze \d+ filesystem/m.test(said) ? "frozen" : "unknown";
  } catch (error) {
    return freezeOutcome(error);
  }
}

/** How long the guest agent may take to freeze (or thaw) the filesystems before the copy goes on without it. */
const AGENT_TIMEOUT_MS = 15_000;

/** Clones a disk at rest into the new volume `target` (left over from an earlier attempt: replaced). */
export async function copyDiskAtRest(
  uri: string,
  pool: string,
  source: string,
  target: string,
  timeoutMs: number,
): Promise<void> {
  await virsh(uri, ["vol-delete", "--pool", pool, target]).catch(() => undefined);
  await virsh(uri, ["vol-clone", "--pool", pool, source, target], { timeoutMs });
}

/**
 * Mirrors a running domain's disk `vda` into the new volume `target` of `capacity` bytes, and returns how
 * consistent the copy is. A failure removes the half-made volume and ends the mirror, leaving the domain as it
 * was.
 */
export async function copyRunningDisk(
  uri: string,
  pool: string,
  domain: string,
  target: string,
  capacity: number,
  timeoutMs: number,
): Promise<SnapshotConsistency> {
  // A mirror left running by an earlier attempt that was cut off (libvirtd restarted under it, so its own
  // abort could not reach the host) would make this one fail with "already in active block job" every time.
  await virsh(uri, ["blockjob", domain, "vda", "--abort"]).catch(() => undefined);
  await virsh(uri, ["vol-delete", "--pool", pool, target]).catch(() => undefined);
  await virsh(uri, ["vol-create-as", "--pool", pool, target, String(capacity), "--format", "qcow2"]);
  try {
    // libvirt mirrors into a file (a pool volume is not accepted as the destination): the volume's own path.
    const path = (await virsh(uri, ["vol-path", "--pool", pool, target])).trim();
    // --wait returns once the copy has caught up and follows every write; --transient-job lets a persistent
    // domain do this (the job is not recorded in its definition).
    await virsh(
      uri,
      [
        "blockcopy",
        domain,
        "vda",
        "--dest",
        path,
        "--format",
        "qcow2",
        "--reuse-external",
        "--transient-job",
        "--wait",
        "--timeout",
        String(Math.ceil(timeoutMs / 1000)),
      ],
      { timeoutMs: timeoutMs + 60_000 },
    );
    const frozen = await freeze(uri, domain, AGENT_TIMEOUT_MS);
    try {
      // Ending a mirror that has caught up leaves the copy as the disk was at this instant.
      await virsh(uri, ["blockjob", domain, "vda", "--abort"]);
    } finally {
      if (frozen !== "no_agent") {
        await virsh(uri, ["domfsthaw", domain], { timeoutMs: AGENT_TIMEOUT_MS }).catch((error) => {
          if (frozen === "frozen")
            console.error(`${domain}: thawing its filesystems failed: ${String(error)}`);
        });
      }
    }
    return frozen === "frozen" ? "frozen" : "crash_consistent";
  } catch (error) {
    await virsh(uri, ["blockjob", domain, "vda", "--abort"]).catch(() => undefined);
    await virsh(uri, ["vol-delete", "--pool", pool, target]).catch(() => undefined);
    throw error;
  }
}
