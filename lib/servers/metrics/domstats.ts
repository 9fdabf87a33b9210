/**
 * Reads what `virsh domstats --state --cpu-total --balloon --interface --block` prints: one "Domain: 'name'"
 * line per domain, then `key=value` lines. Pure, so the parser is tested on real output.
 */

/** One running domain's counters since its QEMU process started (a new run starts them from zero). */
export type DomainCounters = {
  /** Milliseconds of host CPU the domain used (`cpu.time`, nanoseconds, read exactly). */
  cpuMs: number;
  /** Bytes the guest received and sent on its cards libvirt knows (`net.N.rx.bytes`, `net.N.tx.bytes`). */
  rxBytes: number;
  txBytes: number;
  /** Bytes read from and written to its disks (`block.N.rd.bytes`, `block.N.wr.bytes`). */
  readBytes: number;
  writeBytes: number;
  /** Memory in use inside the guest in KiB, where its balloon driver reports it; else undefined. */
  memoryUsedKib: number | undefined;
};

export type DomainReading = { running: boolean; counters: DomainCounters | undefined };

/** libvirt's virDomainState: 1 running, 2 blocked, 3 paused, 4 shutting down, 5 shut off, 6 crashed, ... */
const RUNNING_STATES = new Set(["1", "2", "3", "4"]);

const NS_PER_MS = 1_000_000n;

/** A non-negative integer counter, or undefined when absent or not a number. */
function counter(value: string | undefined): bigint | undefined {
  return value !== undefined && /^\d+$/.test(value) ? BigInt(value) : undefined;
}

/** Sums `<group>.<i>.<field>` over i < `<group>.count`. */
function sumOver(stats: Map<string, string>, group: "net" | "block", field: string): number {
  const count = Number(stats.get(`${group}.count`) ?? 0);
  let total = 0n;
  for (let index = 0; index < count; index++) total += counter(stats.get(`${group}.${index}.${field}`)) ?? 0n;
  return Number(total);
}

function countersOf(stats: Map<string, string>): DomainCounters | undefined {
  const cpu = counter(stats.get("cpu.time"));
  if (cpu === undefined) return undefined;
  // "available" is the memory the guest can use, "usable" what it could still take without swapping (its
  // MemAvailable): the difference is what is in use. Absent without a balloon driver in the guest.
  const available = counter(stats.get("balloon.available"));
  const usable = counter(stats.get("balloon.usable"));
  return {
    cpuMs: Number(cpu / NS_PER_MS),
    rxBytes: sumOver(stats, "net", "rx.bytes"),
    txBytes: sumOver(stats, "net", "tx.bytes"),
    readBytes: sumOver(stats, "block", "rd.bytes"),
    writeBytes: sumOver(stats, "block", "wr.bytes"),
    memoryUsedKib:
      available !== undefined && usable !== undefined && available >= usable
        ? Number(available - usable)
        : undefined,
  };
}

/** Each domain's `key=value` lines of `virsh domstats` output, by domain name, in the order printed. */
export function domstatsBlocks(output: string): Map<string, Map<string, string>> {
  const blocks = new Map<string, Map<string, string>>();
  let stats: Map<string, string> | undefined;
  for (const line of output.split("\n")) {
    const header = /^Domain: '(.*)'$/.exec(line.trim());
    if (header) {
      stats = new Map();
      blocks.set(header[1] ?? "", stats);
      continue;
    }
    const pair = /^\s+([\w.-]+)=(.*)$/.exec(line);
    if (pair && stats) stats.set(pair[1] ?? "", (pair[2] ?? "").trim());
  }
  return blocks;
}

/** libvirt's virDomainState says the domain runs (running, blocked, paused, shutting down). */
export const isRunningState = (stats: Map<string, string>) =>
  RUNNING_STATES.has(stats.get("state.state") ?? "");

/** Every domain in the output by name: running or not, and its counters when it runs. */
export function parseDomstats(output: string): Map<string, DomainReading> {
  const domains = new Map<string, DomainReading>();
  for (const [name, stats] of domstatsBlocks(output)) {
    const running = isRunningState(stats);
    domains.set(name, { running, counters: running ? countersOf(stats) : undefined });
  }
  return domains;
}
