import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { HypervisorHost } from "../config";
import { BALLOON, domainXml } from "../libvirt/domain";
import { macFor } from "../libvirt/network";
import { DOMSTATS_ARGS, domiftuneArgs, LibvirtUsageSource } from "./libvirt-source";
import type { SampledServer } from "./source";

/** libvirt's test driver: a host made of an XML file, driven by the real virsh and libvirt API. */
const scratch = mkdtempSync(path.join(tmpdir(), "vps-metrics-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function testHost(): HypervisorHost & { uri: string } {
  const domain = (id: number, state: number) =>
    `<domain type="test" xmlns:test="http://libvirt.org/schemas/domain/test/1.0"><name>vpst-${id}</name>` +
    `<memory>65536</memory><os><type>hvm</type></os><devices><interface type='bridge'><source bridge='br0'/>` +
    `<mac address='${macFor(id)}'/><target dev='vnet${id}'/></interface></devices>` +
    `<test:runstate>${state}</test:runstate></domain>`;
  const node = path.join(scratch, "node.xml");
  writeFileSync(
    node,
    `<node>${domain(7, 1)}${domain(8, 5)}<domain type="test"><name>other-3</name><memory>65536</memory><os><type>hvm</type></os></domain></node>`,
  );
  return {
    name: "test-1",
    location: "nl",
    uri: `test://${node}`,
    memoryMb: 1,
    vcpus: 1,
    diskGb: 1,
    network: {
      bridge: "br0",
      pool: { first: "203.0.113.10", last: "203.0.113.20" },
      prefix: 24,
      gateway: "203.0.113.1",
      nameservers: [],
    },
  };
}

/** Runs virsh commands in one connection (the test driver's state lasts as long as its connection). */
const virshSession = (uri: string, commands: string[][]) =>
  execFileSync("virsh", ["-c", uri, commands.map((args) => args.join(" ")).join(" ; ")], {
    encoding: "utf8",
    env: { ...process.env, LC_ALL: "C" },
  });

const server = (id: number) => ({ id }) as SampledServer;

describe("usage from libvirt", () => {
  it("reads the prefix's domains of a host in one domstats call, running or not", async () => {
    const host = testHost();
    const source = new LibvirtUsageSource({ hypervisors: [host], domainPrefix: "vpst-" });
    const readings = await source.read("test-1");
    expect([...readings.keys()].sort()).toEqual([7, 8]);
    expect(readings.get(7)?.running).toBe(true);
    expect(readings.get(8)).toEqual({ running: false, counters: undefined });
    expect(DOMSTATS_ARGS[0]).toBe("domstats");
  });

  it("slows a card to 10 Mbit/s both ways by its MAC and frees it again, as libvirt reads it back", () => {
    const { uri } = testHost();
    const mac = macFor(7);
    const out = virshSession(uri, [
      domiftuneArgs("vpst-7", mac, 10, "--live"),
      ["domiftune", "vpst-7", mac],
      domiftuneArgs("vpst-7", mac, null, "--live"),
      ["domiftune", "vpst-7", mac],
    ]);
    const [slowed, freed] = out.split(/\n\s*\n/).filter((part) => part.includes("inbound"));
    // libvirt takes kilobytes per second: 10 Mbit/s is 1250.
    for (const line of ["inbound.average: 1250", "inbound.peak   : 1250", "outbound.average: 1250"]) {
      expect(slowed).toContain(line);
    }
    expect(freed).toContain("inbound.average: 0");
    expect(freed).toContain("outbound.average: 0");
  });

  it("sets a running machine live and then in its definition; a stopped one is only ever freed", async () => {
    const host = testHost();
    const source = new LibvirtUsageSource({ hypervisors: [host], domainPrefix: "vpst-" });
    await expect(source.setSlowdown("test-1", server(7), true, 10)).resolves.toBe(true);
    await expect(source.setSlowdown("test-1", server(8), false, null)).resolves.toBe(true);
    // A stored limit the host cannot apply would keep the machine from starting: it waits until it runs.
    await expect(source.setSlowdown("test-1", server(8), false, 10)).resolves.toBe(false);
    await expect(source.setSlowdown("test-1", server(9), true, 10)).rejects.toThrow(/domiftune/);
    // A host without a bridge: user-mode cards are not libvirt's to shape.
    const userMode = new LibvirtUsageSource({
      hypervisors: [{ ...host, network: undefined }],
      domainPrefix: "vpst-",
    });
    await expect(userMode.setSlowdown("test-1", server(7), true, 10)).resolves.toBe(false);
  });

  it("gives every domain a statistics balloon that libvirt's schema accepts", () => {
    const xml = domainXml({
      name: "vps-7",
      memoryMb: 1024,
      vcpus: 1,
      virtType: "qemu",
      pool: "vps-disks",
      diskVolume: "vps-7.qcow2",
      seedVolume: "vps-7-seed.iso",
      sshForwardPort: 22007,
      mac: macFor(7),
      bridge: { name: "br0", address: "203.0.113.12" },
    });
    expect(xml).toContain(BALLOON);
    const file = path.join(scratch, "domain.xml");
    writeFileSync(file, xml);
    const validated = spawnSync("virt-xml-validate", [file, "domain"], { encoding: "utf8" });
    expect([validated.status, validated.stderr.trim()]).toEqual([0, `${file} validates`]);
  });
});
