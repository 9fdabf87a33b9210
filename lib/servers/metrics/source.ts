/** Where usage readings come from: the hosts through libvirt, or the demo's generated series. */
import type { servers } from "@/lib/db/schema";
import type { RunCounters } from "./counters";
import type { DomainReading } from "./domstats";

/** What sampling needs of a server. */
export type SampledServer = Pick<
  typeof servers.$inferSelect,
  "id" | "plan" | "status" | "powerState" | "hypervisor" | "vcpus" | "memoryMb" | "createdAt" | "expiresAt"
>;

/** The last reading kept for a server (its run counters and when they were read). */
export type LastReading = RunCounters & { readAt: Date };

export interface UsageSource {
  /** True for the generated demo series: no machine was read. */
  readonly demo: boolean;
  /** The hosts to read, one at a time each (each under its own lease). */
  hosts(): string[];
  /** Whether a server belongs to a host (the servers a reading of that host covers). */
  onHost(server: SampledServer, host: string): boolean;
  /**
   * One reading of every machine on the host, by server id: for libvirt a single `virsh domstats` for all its
   * domains. A server missing from the answer has no machine there now.
   */
  read(
    host: string,
    servers: SampledServer[],
    last: Map<number, LastReading>,
    at: Date,
  ): Promise<Map<number, DomainReading>>;
  /**
   * Slows the server's network to `mbps` both ways, or frees it (null). Resolves false when the host cannot
   * shape this server's card (no card libvirt manages), true once the host confirmed it.
   */
  setSlowdown(host: string, server: SampledServer, running: boolean, mbps: number | null): Promise<boolean>;
}
