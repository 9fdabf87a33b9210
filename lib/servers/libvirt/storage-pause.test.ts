import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withFakeVirsh } from "@/lib/testing/fake-virsh";
import type { ServerSettings } from "../config";
import { CustomerFacingError } from "../failure-reasons";
import type { ServerRow } from "../present";
import { LibvirtProvisioner } from "./provisioner";

/**
 * A host as virsh shows it when its pool filled up: QEMU paused vpst-7 at a failed disk write, vpst-9 is
 * paused by someone on purpose, vpst-8 runs, vpst-11 is shut off. The stand-in virsh logs every call.
 */
const HOST = [
  "#!/bin/sh",
  'log="$(dirname "$0")/calls"',
  "shift 2", // -c URI
  'echo "$*" >> "$log"',
  'case "$*" in',
  "  \"domstats --state\") printf \"Domain: 'vpst-7'\\n  state.state=3\\n  state.reason=5\\n\\nDomain: 'vpst-8'\\n  state.state=1\\n  state.reason=1\\n\\nDomain: 'vpst-9'\\n  state.state=3\\n  state.reason=1\\n\\nDomain: 'vpst-11'\\n  state.state=5\\n  state.reason=1\\n\\nDomain: 'other-1'\\n  state.state=5\\n  state.reason=0\\n\\n\" ;;",
  '  "domstate vpst-7 --reason") echo "paused (I/O error)" ;;',
  '  "domstate vpst-9 --reason") echo "paused (user)" ;;',
  '  "resume vpst-7") echo "Domain \'vpst-7\' resumed" ;;',
  '  *) echo "error: unexpected: $*" >&2; exit 1 ;;',
  "esac",
];

const provisioner = () =>
  new LibvirtProvisioner({
    hypervisors: [
      { name: "test-1", location: "nl", uri: "test:///default", memoryMb: 1, vcpus: 1, diskGb: 1 },
    ],
    domainPrefix: "vpst-",
  } as ServerSettings);

const calls = (folder: string) => readFileSync(path.join(folder, "calls"), "utf8").trim().split("\n");

describe("machines QEMU paused because their pool was full", () => {
  it("are resumed by the host's reconciliation; machines paused for another reason are left paused", async () => {
    await withFakeVirsh(HOST, async (folder) => {
      const states = await provisioner().hostStates("test-1");
      expect(Object.fromEntries(states ?? [])).toEqual({
        7: "running",
        8: "running",
        9: "stopped",
        11: "stopped",
      });
      // One call reads the whole host; only the machine paused by a disk error is looked at again.
      expect(calls(folder).filter((call) => call.startsWith("domstats") || call.startsWith("list"))).toEqual([
        "domstats --state",
      ]);
      expect(calls(folder)).toContain("resume vpst-7");
      expect(calls(folder)).not.toContain("resume vpst-9");
    });
  });

  it("fail a build's wait for SSH at once, with the reason, instead of at the boot timeout", async () => {
    await withFakeVirsh(HOST, async () => {
      // Nothing listens on port 1: SSH does not answer, so the machine's state is read.
      const building = (id: number) =>
        ({ id, hypervisor: "test-1", ip: "127.0.0.1", sshPort: 1 }) as unknown as ServerRow;
      const paused = provisioner().ready(building(7));
      await expect(paused).rejects.toBeInstanceOf(CustomerFacingError);
      await expect(paused).rejects.toThrow("the host's storage is full");
      await expect(provisioner().ready(building(9))).resolves.toBe(false);
    });
  });
});
