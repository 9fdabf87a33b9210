/**
 * The demo's usage: plausible series for simulated servers (no machine exists), generated from the time of
 * day and the server's id so every app instance generates the same ones. They pass through the same storage,
 * roll-ups and traffic accounting as real readings, and the API marks them `demo`.
 */
import type { DomainReading } from "./domstats";
import type { LastReading, SampledServer, UsageSource } from "./source";

const DAY_MS = 86_400_000;

/** A repeatable number in [0, 1) from the server id and a salt. */
function unit(id: number, salt: number): number {
  const x = Math.sin(id * 12.9898 + salt * 78.233) * 43_758.5453;
  return x - Math.floor(x);
}

/** Busier in the (UTC) afternoon, quieter at night, with a slower and a faster wave on top: 0 to 1. */
function activity(id: number, at: Date, salt: number): number {
  const t = at.getTime();
  const day = Math.sin((2 * Math.PI * (t % DAY_MS)) / DAY_MS - Math.PI / 2 + unit(id, salt) * 1.5);
  const waves =
    Math.sin((2 * Math.PI * t) / (47 * 60_000) + unit(id, salt + 1) * 6) * 0.25 +
    Math.sin((2 * Math.PI * t) / (7 * 60_000) + unit(id, salt + 2) * 6) * 0.1;
  return Math.min(1, Math.max(0, 0.45 + 0.35 * day + waves));
}

/** What a simulated server does per second at `at`. */
export function demoRates(server: SampledServer, at: Date) {
  const { id } = server;
  const vcpus = server.vcpus ?? 1;
  const scale = 1 + Math.floor(unit(id, 9) * 4);
  return {
    cpuMsPerSecond: 1000 * vcpus * (0.03 + 0.35 * activity(id, at, 1) * unit(id, 3)),
    // About 0.1 to 2 Mbit/s out on average: a small web server's month of traffic.
    txBytesPerSecond: 12_500 * scale * (0.2 + 1.6 * activity(id, at, 4)),
    rxBytesPerSecond: 4_000 * scale * (0.3 + activity(id, at, 5)),
    readBytesPerSecond: 20_000 * (0.1 + activity(id, at, 6)),
    writeBytesPerSecond: 60_000 * (0.1 + activity(id, at, 7)),
    memoryUsedKib: Math.round((server.memoryMb ?? 1024) * 1024 * (0.3 + 0.3 * activity(id, at, 8))),
  };
}

export class DemoUsageSource implements UsageSource {
  readonly demo = true;

  /** Gaps longer than this are a new run (a stopped machine started again), not usage. */
  constructor(private readonly intervalSeconds: number) {}

  hosts(): string[] {
    return ["simulated"];
  }

  onHost(): boolean {
    return true;
  }

  /** Each running server's counters move on from its last reading by what it did since (a new run after a gap). */
  async read(
    _host: string,
    servers: SampledServer[],
    last: Map<number, LastReading>,
    at: Date,
  ): Promise<Map<number, DomainReading>> {
    const readings = new Map<number, DomainReading>();
    for (const server of servers) {
      if (server.status !== "active" || server.powerState !== "running") continue;
      const previous = last.get(server.id);
      const elapsed = previous ? (at.getTime() - previous.readAt.getTime()) / 1000 : Number.POSITIVE_INFINITY;
      const continues = previous !== undefined && elapsed >= 0 && elapsed <= this.intervalSeconds * 3;
      const seconds = continues ? elapsed : this.intervalSeconds;
      const base = continues ? previous : { cpuMs: 0, rxBytes: 0, txBytes: 0, readBytes: 0, writeBytes: 0 };
      const rate = demoRates(server, at);
      readings.set(server.id, {
        running: true,
        counters: {
          cpuMs: base.cpuMs + Math.round(rate.cpuMsPerSecond * seconds),
          rxBytes: base.rxBytes + Math.round(rate.rxBytesPerSecond * seconds),
          txBytes: base.txBytes + Math.round(rate.txBytesPerSecond * seconds),
          readBytes: base.readBytes + Math.round(rate.readBytesPerSecond * seconds),
          writeBytes: base.writeBytes + Math.round(rate.writeBytesPerSecond * seconds),
          memoryUsedKib: rate.memoryUsedKib,
        },
      });
    }
    return readings;
  }

  /** Nothing to shape: the slowdown is recorded as in force. */
  async setSlowdown(): Promise<boolean> {
    return true;
  }
}
