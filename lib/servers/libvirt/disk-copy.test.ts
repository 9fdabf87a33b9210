import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
    const bin = mkdtempSync(path.join(tmpdir(), "fake-virsh-"));
    const job = path.join(bin, "active-job");
    const calls = path.join(bin, "calls");
    writeFileSync(job, "");
    writeFileSync(
      path.join(bin, "virsh"),
      [
        "#!/bin/sh",
        "shift 2", // -c URI
        `echo "$*" >> ${calls}`,
        'case "$1" in',
        `  blockjob) [ -e ${job} ] || { echo 'error: No active block job' >&2; exit 1; }; rm ${job} ;;`,
        `  blockcopy) [ -e ${job} ] && { echo "error: block copy still active: disk 'vda' already in active block job" >&2; exit 1; }; touch ${job} ;;`,
        "  vol-path) echo /pool/copy.qcow2 ;;",
        "  domfsfreeze) echo 'error: Guest agent is not responding: QEMU guest agent is not connected' >&2; exit 1 ;;",
        "esac",
        "",
      ].join("\n"),
    );
    chmodSync(path.join(bin, "virsh"), 0o755);
    const searchPath = process.env.PATH;
    process.env.PATH = `${bin}:${searchPath}`;
    try {
      await expect(
        copyRunningDisk("test:///default", "pool", "vps-7", "vps-7-snap-3.qcow2", 4096, 10_000),
      ).resolves.toBe("crash_consistent");
      const commands = readFileSync(calls, "utf8")
        .trim()
        .split("\n")
        .map((line) => line.split(" ")[0]);
      expect(commands.indexOf("blockjob")).toBeLessThan(commands.indexOf("blockcopy"));
      // The copy's own mirror was ended too: nothing is left running on the disk.
      expect(existsSync(job)).toBe(false);
    } finally {
      process.env.PATH = searchPath;
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
