import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseDomstats } from "./domstats";

/** Real `virsh domstats` output of this machine's guests (libvirt 9.0): see fixtures/. */
const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "fixtures", name), "utf8");

describe("virsh domstats output", () => {
  it("reads a Debian guest on a bridge with a balloon driver: CPU, card, disk and memory in use", () => {
    const domains = parseDomstats(fixture("domstats-bridge.txt"));
    expect(domains.get("vpsm-capture-deb")).toEqual({
      running: true,
      counters: {
        cpuMs: 23_114,
        rxBytes: 1_726,
        txBytes: 2_778,
        readBytes: 55_809_536,
        writeBytes: 33_353_728,
        // balloon.available - balloon.usable (KiB): MemTotal less MemAvailable, as the guest sees it.
        memoryUsedKib: 996_608 - 809_732,
      },
    });
  });

  it("leaves memory unknown for a guest without a balloon driver, and a stopped domain without counters", () => {
    const domains = parseDomstats(fixture("domstats-bridge.txt"));
    expect(domains.get("vpsm-capture-tiny")?.counters).toMatchObject({
      rxBytes: 180,
      txBytes: 0,
      memoryUsedKib: undefined,
    });
    expect(domains.get("vpst-9")).toEqual({ running: false, counters: undefined });
    expect([...domains.keys()]).toEqual(["vpsm-capture-deb", "vpsm-capture-tiny", "vpst-9"]);
  });

  it("reads a guest on user-mode networking (a card libvirt does not see) as no network", () => {
    const domains = parseDomstats(fixture("domstats-user-network.txt"));
    expect(domains.get("vpsx-1")?.counters).toEqual({
      cpuMs: 3_519,
      rxBytes: 0,
      txBytes: 0,
      readBytes: 4_608,
      writeBytes: 0,
      memoryUsedKib: undefined,
    });
  });

  it("sums every card and disk, and reads nanoseconds past 2^53 exactly", () => {
    const domains = parseDomstats(
      [
        "Domain: 'vps-12'",
        "  state.state=1",
        "  cpu.time=18014398509481985123",
        "  net.count=2",
        "  net.0.rx.bytes=10",
        "  net.0.tx.bytes=20",
        "  net.1.rx.bytes=1",
        "  net.1.tx.bytes=2",
        "  block.count=2",
        "  block.0.rd.bytes=100",
        "  block.0.wr.bytes=200",
        "  block.1.rd.bytes=5",
        "  block.1.wr.bytes=junk",
        "",
      ].join("\n"),
    );
    expect(domains.get("vps-12")?.counters).toEqual({
      cpuMs: 18_014_398_509_481,
      rxBytes: 11,
      txBytes: 22,
      readBytes: 105,
      writeBytes: 200,
      memoryUsedKib: undefined,
    });
  });

  it("answers nothing for output that names no domain", () => {
    expect(parseDomstats("").size).toBe(0);
    expect(parseDomstats("  cpu.time=5\n").size).toBe(0);
  });
});
