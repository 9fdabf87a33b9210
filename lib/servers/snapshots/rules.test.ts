import { describe, expect, it } from "vitest";
import { checkRestore, checkSnapshotLimit, countsAgainstLimit, snapshotName } from "./rules";

const kept = (
  kind: "manual" | "reinstall" | "expiry",
  state: "creating" | "available" | "failed" | "deleting",
) => ({
  kind,
  state,
});

describe("snapshot rules", () => {
  it("counts what is taken or kept against the limit, not failed, deleting or a lapsed server's last disk", () => {
    expect(countsAgainstLimit(kept("manual", "available"))).toBe(true);
    expect(countsAgainstLimit(kept("reinstall", "creating"))).toBe(true);
    expect(countsAgainstLimit(kept("manual", "failed"))).toBe(false);
    expect(countsAgainstLimit(kept("manual", "deleting"))).toBe(false);
    expect(countsAgainstLimit(kept("expiry", "available"))).toBe(false);
  });

  it("refuses one more at the limit with snapshot_limit_reached, naming the way out", () => {
    const two = [kept("manual", "available"), kept("reinstall", "creating"), kept("manual", "failed")];
    expect(() => checkSnapshotLimit(two, 3)).not.toThrow();
    expect(() => checkSnapshotLimit(two, 2)).toThrow(
      expect.objectContaining({ code: "snapshot_limit_reached" }),
    );
    expect(() => checkSnapshotLimit(two, 2)).toThrow(/keeps 2 snapshots at most: delete one first\.$/);
    expect(() => checkSnapshotLimit(two, 2, true)).toThrow(/snapshot_first: false/);
    expect(() => checkSnapshotLimit([kept("manual", "available")], 1)).toThrow(/keeps 1 snapshot at most/);
  });

  it("names a snapshot as asked (trimmed, printable, at most 64) or by its time and kind", () => {
    const at = new Date("2026-11-25T09:41:12.345Z");
    expect(snapshotName("  Before the upgrade ", "manual", at)).toBe("Before the upgrade");
    expect(snapshotName(undefined, "manual", at)).toBe("Snapshot of 2026-11-25 09:41 UTC");
    expect(snapshotName("   ", "manual", at)).toBe("Snapshot of 2026-11-25 09:41 UTC");
    expect(snapshotName(undefined, "reinstall", at)).toBe("Before reinstall, 2026-11-25 09:41 UTC");
    for (const bad of ["x".repeat(65), "line\nbreak", "tab\there", "ünïcode"]) {
      expect(() => snapshotName(bad, "manual", at), bad).toThrow(
        expect.objectContaining({ status: 400, code: "invalid_snapshot_name" }),
      );
    }
  });

  it("restores only with the hostname typed, on an active server out of rescue mode, from an available snapshot", () => {
    const server = { hostname: "web-1", status: "active", rescueState: null };
    const available = kept("manual", "available");
    expect(() => checkRestore(server, available, " WEB-1 ")).not.toThrow();
    const refusals: [Parameters<typeof checkRestore>, number, string][] = [
      [[server, available, "web-2"], 400, "confirmation_mismatch"],
      [[{ ...server, status: "suspended" }, available, "web-1"], 409, "server_not_active"],
      [[{ ...server, rescueState: "active" }, available, "web-1"], 409, "server_in_rescue"],
      [[server, kept("manual", "creating"), "web-1"], 409, "snapshot_not_available"],
      [[server, kept("manual", "failed"), "web-1"], 409, "snapshot_not_available"],
      [[server, kept("manual", "deleting"), "web-1"], 409, "snapshot_not_available"],
      [[server, kept("expiry", "available"), "web-1"], 409, "snapshot_not_available"],
    ];
    for (const [args, status, code] of refusals) {
      expect(() => checkRestore(...args), code).toThrow(expect.objectContaining({ status, code }));
    }
  });
});
