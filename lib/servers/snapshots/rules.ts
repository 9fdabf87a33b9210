import { badRequest, conflict } from "@/lib/api/errors";
import type { SnapshotKind, SnapshotState } from "@/lib/db/types";

/** Snapshots that take one of the server's places: being taken or kept (a lapsed server's last disk is extra). */
export const countsAgainstLimit = (snapshot: { kind: SnapshotKind; state: SnapshotState }) =>
  snapshot.kind !== "expiry" && (snapshot.state === "creating" || snapshot.state === "available");

/**
 * Refuses another snapshot once the server keeps `limit`: 409 naming the way out (delete one, or for a
 * reinstall, skip the snapshot).
 */
export function checkSnapshotLimit(
  existing: { kind: SnapshotKind; state: SnapshotState }[],
  limit: number,
  forReinstall = false,
): void {
  if (existing.filter(countsAgainstLimit).length < limit) return;
  throw conflict(
    "snapshot_limit_reached",
    `This server keeps ${limit} snapshot${limit === 1 ? "" : "s"} at most: delete one first` +
      (forReinstall ? ", or reinstall with snapshot_first: false." : "."),
  );
}

/** The name a snapshot is listed under: the one given (trimmed), or when it was taken. */
export function snapshotName(requested: string | undefined, kind: SnapshotKind, at: Date): string {
  const name = requested?.trim();
  if (name) {
    if (!/^[\x20-\x7e]{1,64}$/.test(name)) {
      throw badRequest("invalid_snapshot_name", "Send name as 1 to 64 printable ASCII characters.");
    }
    return name;
  }
  const when = `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  if (kind === "reinstall") return `Before reinstall, ${when}`;
  if (kind === "resize") return `Before resize, ${when}`;
  if (kind === "automatic") return `Automatic, ${when}`;
  return `Snapshot of ${when}`;
}

/**
 * Checks a restore against the server and the snapshot: the hostname typed out (the disk's present content
 * is lost), an active server out of rescue mode, and a snapshot that is there to restore.
 */
export function checkRestore(
  row: { hostname: string; status: string; rescueState: string | null },
  snapshot: { kind: SnapshotKind; state: SnapshotState },
  confirm: string,
): void {
  if (confirm.trim().toLowerCase() !== row.hostname.toLowerCase()) {
    throw badRequest(
      "confirmation_mismatch",
      "Send confirm as the server's hostname: restoring replaces everything on its disk.",
    );
  }
  if (row.status !== "active") {
    throw conflict("server_not_active", `Only an active server can be restored; this one is ${row.status}.`);
  }
  if (row.rescueState) {
    throw conflict("server_in_rescue", "This server is in rescue mode: leave it first, then restore.");
  }
  if (snapshot.kind === "expiry" || snapshot.state !== "available") {
    throw conflict(
      "snapshot_not_available",
      snapshot.kind === "expiry"
        ? "A terminated server's last disk comes back by renewing the server."
        : `This snapshot is ${snapshot.state}: only an available snapshot can be restored.`,
    );
  }
}
