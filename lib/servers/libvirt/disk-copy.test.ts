import { describe, expect, it } from "vitest";
import { freezeOutcome, parseVolumeInfo } from "./disk-copy";
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
});
