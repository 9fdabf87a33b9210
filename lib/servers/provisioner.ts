import "server-only";
import { and, between, eq, isNotNull, sql } from "drizzle-orm";
import { conflict } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { ipCounters, servers } from "@/lib/db/schema";
import type { PowerAction, PowerState, SnapshotConsistency } from "@/lib/db/types";
import { processWide } from "@/lib/util/process-wide";
import { type HostNetwork, serverSettings } from "./config";
import { DemoConsole } from "./console/demo-console";
import type { ConsoleHandlers, ConsoleStream } from "./console/stream";
import { HOSTS_PER_LOCATION, poolAddress } from "./ip-pool";
import type { FirewallState } from "./libvirt/host-firewall";
import type { HostInventory } from "./libvirt/inventory";
import { FORWARDED_SSH_ADDRESS, freeAddress } from "./libvirt/network";
import { LibvirtProvisioner } from "./libvirt/provisioner";
import type { Counter } from "./network/compile";
import type { ServerRow } from "./present";

export type { PowerAction, PowerState };

/** What a build needs besides the server row. Secrets live only in memory and in the guest's seed. */
export type BuildSpec = {
  server: ServerRow;
  rootPassword: string;
  sshKeys: string[];
  /** The owner's cloud-init user data (a new system only: an order or a reinstall), merged into the seed. */
  userData?: string;
};

/** The running machine cannot take a new password: it is stopped, or has no (answering) guest agent. */
export class GuestAgentUnavailableError extends Error {}

/** The machine's host could not be reached: nothing was changed on it. */
export class HostUnreachableError extends Error {}

/** The host did not say whether the new password was set (cut off, or an unexpected failure): it may be either. */
export class PasswordUnconfirmedError extends Error {}

/** A built machine: `ip` undefined means "take the next address of the location's pool". */
export type Built = { ip: string | undefined; sshPort: number; hostKeyFingerprint: string | null };

/** The longest a disk copy (a snapshot, a restore) may take before it is given up. */
export const DISK_COPY_TIMEOUT_MS = 3 * 3_600_000;

/** A snapshot taken: its size on the host (null when simulated) and how consistent the copy is. */
export type SnapshotTaken = { sizeBytes: number | null; consistency: SnapshotConsistency };

/** The rescue system's login: a temporary root password and the owner's SSH keys, on a host key of its own. */
export type RescueSpec = { server: ServerRow; rootPassword: string; sshKeys: string[] };

/** How a resize leaves the machine: started again or not, and the snapshot to put the disk back from. */
export type ResizeOptions = { start: boolean; restoreDiskFrom?: string };

/** A lapsed server brought back on its kept disk; `newSeed` when its kept seed no longer fits (a new address). */
export type ReviveSpec = BuildSpec & { newSeed: boolean };

/**
 * What builds, powers and destroys machines. Every method is called by the job worker with no database
 * transaction open: host calls can take seconds.
 */
export interface Provisioner {
  readonly name: "simulated" | "libvirt";
  /** True for the simulated provisioner (the demo default): no machine exists behind it. */
  readonly simulated: boolean;
  /** Whether a base image exists for this catalog OS id. */
  imageAvailable(os: string): boolean;
  /**
   * Creates and starts the machine; idempotent (a retry replaces what an earlier attempt left). A reinstall
   * calls it again: the disk, seed and host key are replaced, the server id (and so its address) kept.
   */
  create(spec: BuildSpec): Promise<Built>;
  /** True once the machine accepts logins (its SSH server answers). */
  ready(server: ServerRow): Promise<boolean>;
  /** Applies a power action and returns the resulting state as the host reports it. */
  power(server: ServerRow, action: PowerAction): Promise<PowerState>;
  /**
   * Sets root's password on the running machine (guest agent). Throws GuestAgentUnavailableError or
   * HostUnreachableError when nothing changed, PasswordUnconfirmedError when the host did not say.
   */
  setRootPassword(server: ServerRow, password: string): Promise<void>;
  /**
   * Removes the machine and its disks; a machine already gone is not an error. With `keepDisk` the disk and
   * its seed stay (the last disk of a lapsed server) and their size is returned.
   */
  destroy(server: ServerRow, options?: { keepDisk?: boolean }): Promise<{ keptBytes: number | null }>;
  /** The volume a snapshot of the server is kept in. */
  snapshotVolume(server: Pick<ServerRow, "id">, snapshotId: number): string;
  /**
   * Copies the server's disk into the new volume `volume` of its host's pool, running or not; a copy that fails
   * leaves no volume behind.
   */
  snapshot(server: ServerRow, volume: string): Promise<SnapshotTaken>;
  /** Stops the machine, replaces its disk with a copy of the snapshot `volume` and starts it again. */
  restore(server: ServerRow, volume: string): Promise<void>;
  /** Removes a snapshot's volume; one already gone is not an error. */
  deleteSnapshot(server: ServerRow, volume: string): Promise<void>;
  /** Whether the rescue system's kernel and initramfs are installed. */
  rescueAvailable(): boolean;
  /** Stops the machine and boots the rescue system with the disk attached; returns its host key's fingerprint. */
  enterRescue(spec: RescueSpec): Promise<{ hostKeyFingerprint: string | null }>;
  /**
   * Stops the rescue system and defines the machine on the server's own disk again; boots it unless
   * `start` is false (a held or lapsed server: its own system boots at its next start).
   */
  leaveRescue(server: ServerRow, options?: { start?: boolean }): Promise<void>;
  /** Defines and starts a lapsed server's machine on its kept disk; a new seed gives a new host key. */
  revive(spec: ReviveSpec): Promise<Built>;
  /**
   * Gives the machine the size the server row says (memory, vCPUs, disk): shut down (forced after the stop
   * timeout), its disk copied back from the snapshot `restoreDiskFrom` first where given and the disk is
   * larger than the row's (a growth undone), the disk grown where smaller, the domain defined anew, and
   * started again when `start`. Idempotent: a retry finds what an earlier attempt did.
   */
  resize(server: ServerRow, options: ResizeOptions): Promise<void>;
  /** Power state per server id of the machines on the hosts, or undefined when the host cannot tell. */
  hostStates(hypervisor: string): Promise<Map<number, PowerState> | undefined>;
  /**
   * What the host's hypervisor reports it holds (CPUs, memory, every domain, the disk pool), for the operator's
   * view of sold against real; undefined where no hypervisor stands behind the provisioner (simulated).
   */
  hostInventory(hypervisor: string): Promise<HostInventory | undefined>;
  /**
   * Attaches to the machine's serial console (one per machine: a newer one ends an older one, also one held
   * by another app instance). Failures, and a stopped machine, arrive through `handlers.end`.
   */
  openConsole(server: ServerRow, handlers: ConsoleHandlers): ConsoleStream;
  /** Whether the server's host can filter its traffic: a bridged host (or the simulated provisioner). */
  firewallAvailable(server: ServerRow): boolean;
  /**
   * Applies the server's firewall on its host (its nftables table, swapped atomically) and its IPv6 route;
   * false where there is nothing to apply (no public network, or simulated).
   */
  applyNetwork(server: ServerRow, state: FirewallState): Promise<boolean>;
  /** Removes the server's firewall and route from its host; what is already gone is no error. */
  removeNetwork(server: ServerRow): Promise<void>;
  /** The hit counts of the server's table by rule comment; undefined where the host has none to read. */
  firewallCounters(server: ServerRow): Promise<Map<string, Counter> | undefined>;
  /** The server ids whose firewall tables a host holds; undefined where the host has no firewall. */
  firewallTables(hypervisor: string): Promise<Set<number> | undefined>;
}

/**
 * How long a simulated machine takes to change its power state or its password: a real one takes seconds,
 * and for that time the server refuses other host operations (409 server_busy), as the demo should show.
 */
const SIMULATED_HOST_CALL_MS = 1_000;
const simulatedHostCall = () => new Promise((resolve) => setTimeout(resolve, SIMULATED_HOST_CALL_MS));

/** Pretends to build servers: up at once (the job's start is delayed by PROVISION_DELAY_SECONDS). */
export class SimulatedProvisioner implements Provisioner {
  readonly name = "simulated";
  readonly simulated = true;
  /** Open demo consoles by server, so a pretend reboot or stop shows in them as a real one would. */
  private readonly consoles = new Map<number, Set<DemoConsole>>();

  imageAvailable(): boolean {
    return true;
  }

  async create(spec: BuildSpec): Promise<Built> {
    // A reinstall replaces the machine: its console ends, as a real one does.
    this.stopConsoles(spec.server);
    return { ip: undefined, sshPort: 22, hostKeyFingerprint: null };
  }

  private stopConsoles(server: ServerRow): void {
    for (const demo of this.consoles.get(server.id) ?? []) demo.stopped();
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async power(server: ServerRow, action: PowerAction): Promise<PowerState> {
    const after = action === "stop" ? "stopped" : "running";
    // Already in the state asked for (a suspension's stop, a renewal's start): nothing to wait for.
    if (action === "reboot" || server.powerState !== after) await simulatedHostCall();
    // Its consoles see the outcome as a real machine's would: a stop ends them, a reboot shows a boot log.
    if (action === "stop") this.stopConsoles(server);
    if (action === "reboot") for (const demo of this.consoles.get(server.id) ?? []) demo.rebooted();
    return after;
  }

  async setRootPassword(): Promise<void> {
    await simulatedHostCall();
  }

  async destroy(server: ServerRow): Promise<{ keptBytes: null }> {
    this.stopConsoles(server);
    return { keptBytes: null };
  }

  snapshotVolume(_server: Pick<ServerRow, "id">, snapshotId: number): string {
    return `simulated-snapshot-${snapshotId}`;
  }

  async snapshot(server: ServerRow): Promise<SnapshotTaken> {
    await simulatedHostCall();
    return { sizeBytes: null, consistency: server.powerState === "running" ? "frozen" : "powered_off" };
  }

  async restore(server: ServerRow): Promise<void> {
    // A restore stops the machine and starts it again on the old disk: its consoles end as with a stop.
    this.stopConsoles(server);
    await simulatedHostCall();
  }

  async deleteSnapshot(): Promise<void> {}

  rescueAvailable(): boolean {
    return true;
  }

  async enterRescue(): Promise<{ hostKeyFingerprint: null }> {
    await simulatedHostCall();
    return { hostKeyFingerprint: null };
  }

  async leaveRescue(): Promise<void> {
    await simulatedHostCall();
  }

  async revive(spec: ReviveSpec): Promise<Built> {
    return { ip: spec.server.ip ?? undefined, sshPort: 22, hostKeyFingerprint: null };
  }

  async resize(server: ServerRow): Promise<void> {
    // The machine goes down for its new size: its consoles end as with a stop.
    this.stopConsoles(server);
    await simulatedHostCall();
  }

  async hostStates(): Promise<undefined> {
    return undefined;
  }

  async hostInventory(): Promise<undefined> {
    return undefined;
  }

  firewallAvailable(): boolean {
    return true;
  }

  /** Nothing to filter: the firewall's rules are kept and simulated, with no counts. */
  async applyNetwork(): Promise<boolean> {
    return false;
  }

  async removeNetwork(): Promise<void> {}

  async firewallCounters(): Promise<undefined> {
    return undefined;
  }

  async firewallTables(): Promise<undefined> {
    return undefined;
  }

  openConsole(server: ServerRow, handlers: ConsoleHandlers): ConsoleStream {
    const open = this.consoles.get(server.id) ?? new Set<DemoConsole>();
    this.consoles.set(server.id, open);
    const demo = new DemoConsole(server.hostname, {
      data: handlers.data,
      end: (why, detail) => {
        open.delete(demo);
        if (open.size === 0) this.consoles.delete(server.id);
        handlers.end(why, detail);
      },
    });
    open.add(demo);
    return demo;
  }
}

/**
 * The next free address of the location's pool: a counter row per location, so concurrent builds on several
 * app instances never hand out one address twice (the partial unique index on `servers (ip, ssh_port)` backs that up).
 * A terminated server holds its address until its machine is destroyed (see releaseAddress).
 */
export async function allocatePoolAddress(tx: Tx, location: string): Promise<string> {
  for (let attempt = 0; attempt < HOSTS_PER_LOCATION; attempt++) {
    const [counter] = await tx
      .insert(ipCounters)
      .values({ location, nextHost: 2 })
      .onConflictDoUpdate({
        target: ipCounters.location,
        set: { nextHost: sql`(${ipCounters.nextHost} % ${HOSTS_PER_LOCATION}) + 1` },
      })
      .returning({ nextHost: ipCounters.nextHost });
    const host = counter ? ((counter.nextHost + HOSTS_PER_LOCATION - 2) % HOSTS_PER_LOCATION) + 1 : 1;
    const ip = poolAddress(location, host);
    const [taken] = await tx.select({ id: servers.id }).from(servers).where(eq(servers.ip, ip)).limit(1);
    if (!taken) return ip;
  }
  throw new Error(`the address pool of ${location} is exhausted`);
}

/**
 * A bridged host's lowest free public address, written to the server before its build (its seed carries it).
 * Addresses of terminated servers whose machines are not yet destroyed are not free: such a machine may still
 * answer on it. Two app instances picking one address at once collide on the (ip, ssh_port) unique index: the
 * losing build fails that attempt and its retry picks the next address.
 */
export async function reserveHostAddress(tx: Tx, server: ServerRow, network: HostNetwork): Promise<string> {
  if (server.ip) return server.ip;
  const held = await tx
    .select({ ip: servers.ip })
    .from(servers)
    .where(and(eq(servers.hypervisor, server.hypervisor ?? ""), isNotNull(servers.ip)));
  const ip = freeAddress(
    network.pool,
    held.flatMap((row) => (row.ip ? [row.ip] : [])),
  );
  if (!ip) throw new Error(`the address pool of host ${server.hypervisor} is exhausted`);
  await tx.update(servers).set({ ip, sshPort: 22 }).where(eq(servers.id, server.id));
  return ip;
}

/** Arbitrary constant: the transaction lock that serialises forwarded-port reservations across app instances. */
const FORWARDED_PORTS_LOCK = 7_340_212;

/**
 * The lowest free port of SSH_FORWARD_PORT_BASE .. + SSH_FORWARD_PORT_COUNT - 1 for a server on a host without
 * a bridge (its guest's SSH is forwarded from 127.0.0.1 of this machine), reserved with the order: a full range
 * is no room (409 before anything is charged). Ports are held like addresses, until the machine is destroyed.
 * Hosts with a bridge, and the simulated provisioner, need none.
 */
export async function reserveForwardedPort(
  tx: Tx,
  location: string,
  hypervisor: string | undefined,
  /** The port to give when it is free (a lapsed server coming back asks for the one it had). */
  preferred?: number | null,
): Promise<{ ip: string; sshPort: number } | undefined> {
  const settings = serverSettings();
  const host = settings.hypervisors.find((h) => h.name === hypervisor);
  if (settings.provisioner !== "libvirt" || !host || host.network) return undefined;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${FORWARDED_PORTS_LOCK})`);
  const first = settings.sshForwardPortBase;
  const last = first + settings.sshForwardPortCount - 1;
  const held = await tx
    .select({ port: servers.sshPort })
    .from(servers)
    .where(and(eq(servers.ip, FORWARDED_SSH_ADDRESS), between(servers.sshPort, first, last)));
  const taken = new Set(held.map((row) => row.port));
  if (preferred && preferred >= first && preferred <= last && !taken.has(preferred)) {
    return { ip: FORWARDED_SSH_ADDRESS, sshPort: preferred };
  }
  for (let port = first; port <= last; port++) {
    if (!taken.has(port)) return { ip: FORWARDED_SSH_ADDRESS, sshPort: port };
  }
  throw conflict(
    "out_of_capacity",
    `No host in ${location} has room for this plan right now; try another location or plan later.`,
  );
}

/**
 * Frees a terminated server's address and port once its machine is gone: until then a machine still running
 * (a destroy not yet run, or failing) would answer on what the next server is given. They are remembered, to
 * be given back if the server returns (a lapsed server renewed) and they are still free then.
 */
export async function releaseAddress(tx: Tx, serverId: number): Promise<void> {
  await tx
    .update(servers)
    .set({ lastIp: sql`${servers.ip}`, lastSshPort: sql`${servers.sshPort}`, ip: null, sshPort: null })
    .where(and(eq(servers.id, serverId), eq(servers.status, "terminated"), isNotNull(servers.ip)));
}

/** The provisioner named by PROVISIONER: simulated (the demo default) or libvirt. */
export const provisioner = (): Provisioner =>
  processWide("servers.provisioner", () => {
    const settings = serverSettings();
    return settings.provisioner === "libvirt" ? new LibvirtProvisioner(settings) : new SimulatedProvisioner();
  });
