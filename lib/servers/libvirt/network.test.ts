import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_SETTINGS } from "../config";
import { USER_NETWORK_CONFIG, USER_NETWORK_MAC } from "./cloud-init";
import { domainXml } from "./domain";
import { freeAddress, macFor, networkConfig, poolAddresses } from "./network";

const spec = {
  name: "vps-7",
  memoryMb: 1024,
  vcpus: 1,
  virtType: "qemu" as const,
  pool: "vps-disks",
  diskVolume: "vps-7.qcow2",
  seedVolume: "vps-7-seed.iso",
  sshForwardPort: 22007,
};

describe("guest networking", () => {
  it("bridged hosts: the card on the host bridge with the server's MAC, filtered to its own address, and no forwarded port", () => {
    const xml = domainXml({ ...spec, mac: macFor(7), bridge: { name: "br0", address: "203.0.113.12" } });
    // libvirt's clean-traffic: only this MAC and address, truthful ARP, nothing but IPv4 and ARP (no IPv6, so
    // no router advertisements); the MAC it checks is the card's own.
    expect(xml).toContain(
      "<interface type='bridge'><source bridge='br0'/><mac address='52:54:00:00:00:07'/><model type='virtio'/>" +
        "<filterref filter='clean-traffic'><parameter name='IP' value='203.0.113.12'/></filterref></interface>",
    );
    expect(xml.match(/<filterref/g)).toHaveLength(1);
    expect(xml).not.toContain("hostfwd");
    expect(xml).not.toContain("qemu:commandline");
    const odd = domainXml({ ...spec, mac: macFor(7), bridge: { name: "br0", address: "1.2.3.4'/><x a='" } });
    expect(odd).toContain("value='1.2.3.4&#39;/&#62;&#60;x a=&#39;'");
    const user = domainXml({ ...spec, mac: USER_NETWORK_MAC });
    expect(user).toContain("hostfwd=tcp:127.0.0.1:22007-:22");
    expect(user).not.toContain("<interface");
    expect(user).not.toContain("filterref");
  });

  it("gives every possible server id its own MAC, and refuses ids it cannot encode", () => {
    expect(macFor(7)).toBe("52:54:00:00:00:07");
    expect(macFor(0x01020a)).toBe("52:54:00:01:02:0a");
    // Past 2^24 the id no longer wraps onto an earlier server's MAC.
    expect(macFor(2 ** 24)).toBe("52:54:01:00:00:00");
    expect(macFor(2 ** 24 + 7)).not.toBe(macFor(7));
    expect(macFor(2 ** 31 - 1)).toBe("52:54:7f:ff:ff:ff");
    for (const id of [-1, 1.5, 2 ** 32, Number.NaN]) expect(() => macFor(id)).toThrow(RangeError);
  });

  it("renders the seed's network-config with the reserved public address, gateway and resolvers, and no IPv6 autoconfiguration", () => {
    expect(
      networkConfig({
        mac: macFor(0x01020a),
        address: "203.0.113.12",
        prefix: 24,
        gateway: "203.0.113.1",
        nameservers: ["9.9.9.9", "1.1.1.1"],
      }),
    ).toBe(
      [
        "version: 2",
        "ethernets:",
        "  nic0:",
        "    match: {macaddress: '52:54:00:01:02:0a'}",
        "    set-name: eth0",
        "    addresses: [203.0.113.12/24]",
        "    gateway4: 203.0.113.1",
        "    accept-ra: false",
        "    link-local: []",
        "    nameservers: {addresses: [9.9.9.9, 1.1.1.1]}",
        "",
      ].join("\n"),
    );
    expect(USER_NETWORK_CONFIG).toContain("addresses: [10.0.2.15/24]");
    expect(USER_NETWORK_CONFIG).not.toContain("nameservers");
    expect(USER_NETWORK_CONFIG).toContain("accept-ra: false");
  });

  it("with IPv6: the server's ::1 beside its IPv4, its gateway on the bridge, and still no autoconfiguration", () => {
    const seed = networkConfig({
      mac: macFor(12),
      address: "203.0.113.12",
      prefix: 24,
      gateway: "203.0.113.1",
      ipv6: { address: "2001:db8:1:105::1", gateway: "fe80::1" },
    });
    expect(seed).toContain("    addresses: [203.0.113.12/24, '2001:db8:1:105::1/64']\n");
    expect(seed).toContain("    gateway6: 'fe80::1'\n    accept-ra: false\n    link-local: [ipv6]\n");
    // Its card's filter: the one for IPv6 guests, bound to its addresses.
    const xml = domainXml({
      ...spec,
      mac: macFor(12),
      bridge: {
        name: "br0",
        address: "203.0.113.12",
        ipv6: { network: "2001:db8:1:105::", linkLocal: "fe80::5054:ff:fe00:c" },
      },
    });
    expect(xml).toContain(
      "<filterref filter='vps-clean-traffic-v6'><parameter name='IP' value='203.0.113.12'/>" +
        "<parameter name='IPV6_NET' value='2001:db8:1:105::'/><parameter name='IPV6_LL' value='fe80::5054:ff:fe00:c'/>" +
        "</filterref>",
    );
    expect(xml).not.toContain("filter='clean-traffic'");
  });

  it("hands out a pool's lowest free address, across octet boundaries, and nothing when exhausted", () => {
    const pool = { first: "198.51.100.254", last: "198.51.101.1" };
    expect(poolAddresses(pool)).toEqual(["198.51.100.254", "198.51.100.255", "198.51.101.0", "198.51.101.1"]);
    expect(freeAddress(pool, ["198.51.100.254"])).toBe("198.51.100.255");
    expect(freeAddress(pool, poolAddresses(pool))).toBeUndefined();
  });

  it("reads a host's bridge and IPv4 pool from HYPERVISORS, all or none of them", () => {
    const host = {
      name: "nl-1",
      location: "nl",
      uri: "qemu:///system",
      memory_mb: 8192,
      vcpus: 4,
      disk_gb: 200,
    };
    const bridged = {
      ...host,
      uri: "qemu+ssh://root@h1/system",
      bridge: "br0",
      ipv4_pool: "203.0.113.10-203.0.113.40",
      ipv4_prefix: 24,
      ipv4_gateway: "203.0.113.1",
      nameservers: ["9.9.9.9"],
    };
    const parse = (hosts: unknown[]) =>
      SERVER_SETTINGS.parse({
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-network-")),
        PROVISIONER: "libvirt",
        ALLOW_DEMO_LIBVIRT: "1",
        HYPERVISORS: JSON.stringify(hosts),
      });
    expect(parse([bridged]).hypervisors[0]?.network).toEqual({
      bridge: "br0",
      pool: { first: "203.0.113.10", last: "203.0.113.40" },
      prefix: 24,
      gateway: "203.0.113.1",
      nameservers: ["9.9.9.9"],
    });
    expect(parse([host]).hypervisors[0]?.network).toBeUndefined();
    expect(() => parse([{ ...host, bridge: "br0" }])).toThrow(
      /needs bridge, ipv4_pool, ipv4_prefix and ipv4_gateway/,
    );
    expect(() => parse([{ ...bridged, ipv4_pool: "203.0.113.40-203.0.113.10" }])).toThrow(
      /invalid ipv4_pool/,
    );
    expect(() => parse([{ ...bridged, ipv4_gateway: "gateway" }])).toThrow(/HYPERVISORS.0.ipv4_gateway/);
    // The libssh transport is accepted: it is the one that checks keyfile and known_hosts.
    const libssh = "qemu+libssh://root@h2:2222/system?keyfile=/etc/vps/id&known_hosts=/etc/vps/known_hosts";
    expect(parse([{ ...bridged, uri: libssh }]).hypervisors[0]?.uri).toBe(libssh);
  });

  it("reads a host's IPv6 prefix beside its pool: a bridge needed, /32 to /63, no two hosts overlapping", () => {
    const bridged = {
      name: "nl-1",
      location: "nl",
      uri: "qemu:///system",
      memory_mb: 8192,
      vcpus: 4,
      disk_gb: 200,
      bridge: "br0",
      ipv4_pool: "203.0.113.10-203.0.113.40",
      ipv4_prefix: 24,
      ipv4_gateway: "203.0.113.1",
    };
    const parse = (hosts: unknown[]) =>
      SERVER_SETTINGS.parse({
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-network-")),
        PROVISIONER: "libvirt",
        ALLOW_DEMO_LIBVIRT: "1",
        HYPERVISORS: JSON.stringify(hosts),
      });
    expect(parse([{ ...bridged, ipv6_prefix: "2001:DB8:1:1ff::/56" }]).hypervisors[0]?.network?.ipv6).toEqual(
      {
        prefix: { address: "2001:db8:1:100::", length: 56, family: 6 },
        gateway: "fe80::1",
      },
    );
    expect(
      parse([{ ...bridged, ipv6_prefix: "2001:db8:1::/48", ipv6_gateway: "2001:db8:1::1" }]).hypervisors[0]
        ?.network?.ipv6?.gateway,
    ).toBe("2001:db8:1::1");
    for (const prefix of ["2001:db8::/64", "2001:db8::/31", "10.0.0.0/8", "nonsense"]) {
      expect(() => parse([{ ...bridged, ipv6_prefix: prefix }])).toThrow(/invalid ipv6_prefix/);
    }
    const {
      bridge: _bridge,
      ipv4_pool: _pool,
      ipv4_prefix: _prefix,
      ipv4_gateway: _gateway,
      ...unbridged
    } = bridged;
    expect(() => parse([{ ...unbridged, ipv6_prefix: "2001:db8::/48" }])).toThrow(/needs a bridge/);
    expect(() => parse([{ ...bridged, ipv6_gateway: "fe80::1" }])).toThrow(
      /ipv6_gateway without ipv6_prefix/,
    );
    expect(() =>
      parse([
        { ...bridged, ipv6_prefix: "2001:db8:1::/48" },
        {
          ...bridged,
          name: "nl-2",
          ipv4_pool: "203.0.113.50-203.0.113.60",
          ipv6_prefix: "2001:db8:1:200::/56",
        },
      ]),
    ).toThrow(/nl-1 and nl-2 have overlapping ipv6_prefix/);
  });
});
