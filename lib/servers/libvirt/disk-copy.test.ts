import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withFakeVirsh } from "@/lib/testing/fake-virsh";
import { copyRunningDisk, freezeOutcome, parseVolumeInfo } from "./disk-copy";
import { VirshError } from "./virsh";

describe("disk copies through virsh", () => {
  it("reads a volume's capacity and allocation from vol-info --bytes", () => {
    const output = [
      "Name:           vps-7-snap-3.qcow2",
      "Type:           file",
      "Capacity:       4294967296 bytes",
      "Allocation:     1445888 bytes",
      "",
    ].join("\n");
    expect(parseVolumeInfo(output)).toEqual({ capacity: 4_294_967_296, allocation: 1_445_888 });
    expect(() => parseVolumeInfo("Name: x\nCapacity: 4.00 GiB\n")).toThrow(/no capacity/);
  });

  it("counts the filesystems as not frozen only when virsh says no agent answers; anything else may have frozen them", () => {
    const failed = (stderr: string, timedOut = false) =>
      freezeOutcome(new VirshError(["domfsfreeze"], stderr, "", timedOut));
    expect(
      failed(
        "error: Unable to freeze filesystems\nerror: Guest agent is not responding: QEMU guest agent is not connected",
      ),
    ).toBe("no_agent");
    expect(failed("error: argument unsupported: QEMU guest agent is not configured")).toBe("no_agent");
    // Cut off while the agent may be freezing, or an error after it acted: thaw all the same.
    expect(failed("error: Guest agent is not responding", true)).toBe("unknown");
    expect(
      failed("error: internal error: unable to execute QEMU agent command 'guest-fsfreeze-freeze'"),
    ).toBe("unknown");
    expect(freezeOutcome(new Error("spawn virsh ENOENT"))).toBe("unknown");
  });

  it("ends a mirror an earlier attempt left running before it starts its own (libvirtd restarted under it)", async () => {
    // A host as virsh shows it after a snapshot attempt was cut off: vda still has its block job. The fake
    // virsh logs every call and refuses a second mirror until that job is aborted, as libvirt does.
    await withFakeVirsh(
      [
        "#!/bin/sh",
        'state="$(dirname "$0")"',
        "shift 2", // -c URI
        'echo "$*" >> "$state/calls"',
        'case "$1" in',
        '  blockjob) [ -e "$state/job" ] || { echo "error: No active block job" >&2; exit 1; }; rm "$state/job" ;;',
        `  blockcopy) [ -e "$state/job" ] && { echo "error: block copy still active: disk 'vda' already in active block job" >&2; exit 1; }; touch "$state/job" ;;`,
        "  vol-path) echo /pool/copy.qcow2 ;;",
        "  domfsfreeze) echo 'error: Guest agent is not responding: QEMU guest agent is not connected' >&2; exit 1 ;;",
        "esac",
      ],
      async (folder) => {
        writeFileSync(path.join(folder, "job"), "");
        await expect(
          copyRunningDisk("test:///default", "pool", "vps-7", "vps-7-snap-3.qcow2", 4096, 10_000),
        ).resolves.toBe("crash_consistent");
        const commands = readFileSync(path.join(folder, "calls"), "utf8")
          .trim()
          .split("\n")
          .map((line) => line.split(" ")[0]);
        expect(commands.indexOf("blockjob")).toBeLessThan(commands.indexOf("blockcopy"));
        // The copy's own mirror was ended too: nothing is left running on the disk.
        expect(existsSync(path.join(folder, "job"))).toBe(false);
      },
    );
  });
});
