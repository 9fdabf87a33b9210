import { describe, expect, it } from "vitest";
import { parseDomains, parseNodeinfo, parsePoolInfo } from "./inventory";

// Real output of virsh 9 on this machine (a shut-off domain defined by hand, and a running one).
const NODEINFO = `CPU model:           x86_64
CPU(s):              2
CPU frequency:       2096 MHz
CPU socket(s):       1
Core(s) per socket:  2
Thread(s) per core:  1
NUMA cell(s):        1
Memory size:         17131296 KiB
`;

const DOMSTATS = `Domain: 'vps-12'
  state.state=1
  state.reason=1
  balloon.current=1048576
  balloon.maximum=1048576
  vcpu.current=1
  vcpu.maximum=1
  vcpu.0.state=1

Domain: 'vps-99'
  state.state=5
  state.reason=0
  balloon.current=262144
  balloon.maximum=262144
  vcpu.current=2
  vcpu.maximum=2

Domain: 'someone-else'
  state.state=5
  state.reason=0
  balloon.current=524288
  balloon.maximum=524288
  vcpu.current=1
  vcpu.maximum=1

Domain: 'vps-rescue'
  state.state=5
  state.reason=0
  balloon.maximum=131072
  vcpu.maximum=1
`;

const POOL = `Name:           vps-disks
UUID:           f07745c7-6824-472e-8899-e8832049c096
State:          running
Persistent:     yes
Autostart:      no
Capacity:       270553174016
Allocation:     34339680256
Available:      236213493760
`;

describe("what libvirt reports of a host", () => {
  it("reads the host's CPUs and memory", () => {
    expect(parseNodeinfo(NODEINFO)).toEqual({ cpus: 2, memoryMb: 16729 });
    expect(() => parseNodeinfo("error: failed to connect")).toThrow(/unexpected/);
  });

  it("reads every domain, running or shut off, with what it is given and the server id its name carries", () => {
    expect(parseDomains(DOMSTATS, "vps-")).toEqual([
      { name: "vps-12", serverId: 12, running: true, vcpus: 1, memoryMb: 1024 },
      { name: "vps-99", serverId: 99, running: false, vcpus: 2, memoryMb: 256 },
      { name: "someone-else", serverId: null, running: false, vcpus: 1, memoryMb: 512 },
      { name: "vps-rescue", serverId: null, running: false, vcpus: 1, memoryMb: 128 },
    ]);
    expect(parseDomains("", "vps-")).toEqual([]);
  });

  it("reads the disk pool in bytes", () => {
    expect(parsePoolInfo(POOL)).toEqual({
      capacityBytes: 270553174016,
      allocationBytes: 34339680256,
      availableBytes: 236213493760,
    });
  });
});
