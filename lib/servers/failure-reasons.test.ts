import { describe, expect, it } from "vitest";
import { CustomerFacingError, customerReason } from "./failure-reasons";
import { VirshError } from "./libvirt/virsh";

describe("what a customer is told about a failed build", () => {
  it("maps host errors to fixed reasons that name no host, path or command", () => {
    const cases: [unknown, string][] = [
      [
        new VirshError(
          ["pool-define-as"],
          "error: failed to connect to the hypervisor\nerror: Cannot recv data: ssh: Could not resolve hostname hv2.internal: Name or service not known: Connection reset by peer",
        ),
        "the host could not be reached",
      ],
      [
        new VirshError(
          ["list"],
          "error: Cannot recv data: ssh: connect to host 127.0.0.1 port 1: Connection refused: Connection reset by peer",
        ),
        "the host could not be reached",
      ],
      [
        new VirshError(
          ["start"],
          "error: Cannot access storage file '/var/lib/vps/images/debian-12.qcow2': No such file or directory",
        ),
        "the system image is missing on the host",
      ],
      [new Error("no image for debian-12"), "the system image is missing on the host"],
      [new Error("the address pool of host hv-7 is exhausted"), "no address was free on the host"],
      [
        new VirshError(
          ["vol-create-as"],
          "error: Failed to create vol vps-9.qcow2\nerror: cannot write to '/var/lib/vps/servers/vps-9.qcow2': No space left on device",
        ),
        "the host's storage is full",
      ],
      [
        new VirshError(
          ["start"],
          "Command failed: virsh -c qemu+ssh://root@hv2/system start vps-9",
          "",
          true,
        ),
        "the host did not answer in time",
      ],
      [
        Object.assign(
          new Error("Command failed: cloud-localds --network-config=/tmp/vps-seed-abc/network-config"),
          {
            killed: true,
          },
        ),
        "the host did not answer in time",
      ],
      [
        new Error("Command failed: cloud-localds --network-config=/tmp/vps-seed-abc/network-config seed.iso"),
        "the host reported an error",
      ],
      ["a thrown string naming /var/lib/vps", "the host reported an error"],
    ];
    for (const [error, reason] of cases) {
      expect(customerReason(error), String(error)).toBe(reason);
    }
  });

  it("passes our own sentences through", () => {
    expect(customerReason(new CustomerFacingError("the machine did not answer on SSH within 300 s"))).toBe(
      "the machine did not answer on SSH within 300 s",
    );
  });
});
