/** Why a snapshot exists: asked for, taken before a reinstall, or the last disk of a server whose period lapsed. */
export type SnapshotKind = "manual" | "reinstall" | "expiry";

/** `deleting`: its volume is being removed; it still holds its space on the host until then. */
export type SnapshotState = "creating" | "available" | "failed" | "deleting";

/**
 * How consistent the copy is: taken from a machine that was off, from a running one whose filesystems the guest
 * agent froze for the moment of the copy, or from a running one without an answering agent (what a power cut
 * would have left: journaling filesystems recover it, writes in flight may be lost).
 */
export type SnapshotConsistency = "powered_off" | "frozen" | "crash_consistent";
