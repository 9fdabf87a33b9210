import { describe, expect, it } from "vitest";
import { usageSince } from "./counters";
import type { DomainCounters } from "./domstats";

const reading = (cpuMs: number, rx: number, tx: number, read = 0, write = 0): DomainCounters => ({
  cpuMs,
  rxBytes: rx,
  txBytes: tx,
  readBytes: read,
  writeBytes: write,
  memoryUsedKib: 4_096,
});

describe("usage between two readings", () => {
  it("counts nothing at the first reading: the counters' start is unknown", () => {
    expect(usageSince(undefined, reading(5_000, 100, 200))).toEqual({ usage: undefined, newRun: false });
  });

  it("counts the difference within one run (a guest's own reboot keeps the run)", () => {
    expect(usageSince(reading(5_000, 100, 200, 10, 20), reading(6_500, 150, 1_200, 10, 90))).toEqual({
      usage: {
        cpuMs: 1_500,
        rxBytes: 50,
        txBytes: 1_000,
        readBytes: 0,
        writeBytes: 70,
        memoryUsedKib: 4_096,
      },
      newRun: false,
    });
  });

  it("counts a new run (stop and start, reinstall) from zero when any counter went back", () => {
    // CPU time restarted; the card's counter happens to be higher than the old run's last: still new.
    expect(usageSince(reading(90_000, 100, 200), reading(1_000, 300, 50))).toEqual({
      usage: { cpuMs: 1_000, rxBytes: 300, txBytes: 50, readBytes: 0, writeBytes: 0, memoryUsedKib: 4_096 },
      newRun: true,
    });
  });

  it("adds up across restarts to exactly what each run counted after its first reading", () => {
    // Run 1 read at 100, 400, 900 bytes out; run 2 (a restart) read at 50, 700; run 3 at 10.
    const readings = [100, 400, 900, 50, 700, 10].map((tx, i) =>
      reading(1_000 * (i % 3 === 0 ? 1 : i), 0, tx),
    );
    let total = 0;
    for (let i = 1; i < readings.length; i++) {
      total += usageSince(readings[i - 1], readings[i] as DomainCounters).usage?.txBytes ?? 0;
    }
    // 300 + 500 (run 1) + 50 + 650 (run 2, counted from zero) + 10 (run 3): nothing twice, nothing negative.
    expect(total).toBe(1_510);
  });
});
