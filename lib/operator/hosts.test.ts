import { describe, expect, it } from "vitest";
import { compareWithRows } from "./hosts";

const domain = (name: string, serverId: number | null, running = true) => ({
  name,
  serverId,
  running,
  vcpus: 1,
  memoryMb: 1024,
});

describe("libvirt's domains against the server rows of a host", () => {
  it("names domains with no live row here, and built rows whose domain is gone", () => {
    const inventory = {
      cpus: 8,
      memoryMb: 32768,
      pool: null,
      domains: [
        domain("vps-1", 1),
        domain("vps-2", 2, false),
        domain("vps-3", 3),
        domain("vps-4", 4),
        domain("vps-5", 5),
        domain("other-vm", null),
      ],
    };
    const hostRows = [
      { id: 1, hostname: "one", status: "active", powerState: "running" },
      { id: 2, hostname: "two", status: "suspended", powerState: "stopped" },
      // Built, but its domain is gone.
      { id: 6, hostname: "six", status: "active", powerState: "running" },
      // Being built: no domain yet, and none is missed.
      { id: 7, hostname: "seven", status: "provisioning", powerState: null },
    ];
    const rowsById = new Map([
      [1, { status: "active", hypervisor: "h1" }],
      [2, { status: "suspended", hypervisor: "h1" }],
      [3, { status: "terminated", hypervisor: "h1" }],
      [4, { status: "active", hypervisor: "h2" }],
    ]);
    expect(compareWithRows("h1", inventory, hostRows, rowsById)).toEqual({
      assigned: { memoryMb: 5120, vcpus: 5, domains: 5, running: 4 },
      otherDomains: { count: 1, memoryMb: 1024, vcpus: 1 },
      strayDomains: [
        { name: "vps-3", serverId: 3, running: true, why: "server terminated" },
        { name: "vps-4", serverId: 4, running: true, why: "server on another host" },
        { name: "vps-5", serverId: 5, running: true, why: "no server row" },
      ],
      missingDomains: [{ serverId: 6, hostname: "six", status: "active" }],
    });
  });
});
