import "server-only";
import { and, eq, inArray, ne } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import { type Database, db } from "@/lib/db/client";
import { hypervisors, servers } from "@/lib/db/schema";
import { type HypervisorHost, serverSettings } from "@/lib/servers/config";
import type { HostInventory } from "@/lib/servers/libvirt/inventory";
import { lockHost, type Size, usedOn } from "@/lib/servers/placement";
import { provisioner } from "@/lib/servers/provisioner";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { type Actor, recordAudit } from "./audit";

/** A server still on a host: what a drained host has left to move or let run out. */
export type HostServer = {
  id: number;
  accountId: number;
  hostname: string;
  status: string;
  plan: string;
  memoryMb: number;
  vcpus: number;
  diskGb: number;
};

/** A domain the host runs under our prefix with no live server row of this host behind it. */
export type StrayDomain = {
  name: string;
  serverId: number | null;
  running: boolean;
  why: "no server row" | "server terminated" | "server on another host";
};

export type LibvirtView =
  | { status: "simulated" }
  | { status: "unreachable"; error: string }
  | {
      status: "ok";
      cpus: number;
      memoryMb: number;
      pool: HostInventory["pool"];
      /** What libvirt gives the domains of this service's prefix (running or not). */
      assigned: { memoryMb: number; vcpus: number; domains: number; running: number };
      /** Domains of other prefixes or names: not ours, but they use the host too. */
      otherDomains: { count: number; memoryMb: number; vcpus: number };
      strayDomains: StrayDomain[];
      /** Live server rows of this host whose domain is gone. */
      missingDomains: { serverId: number; hostname: string; status: string }[];
    };

export type HostView = {
  name: string;
  location: string;
  uri: string;
  capacity: Size;
  sold: Size;
  free: Size;
  drained: { at: string; reason: string | null } | null;
  servers: HostServer[];
  libvirt: LibvirtView;
};

/** One inventory per host per this long: the overview and the hosts page share it. */
const INVENTORY_TTL_MS = 10_000;

type CachedInventory = { at: number; reading: Promise<HostInventory | undefined> };

function inventoryOf(host: string, fresh: boolean): Promise<HostInventory | undefined> {
  const cache = processWide("operator.inventories", () => new Map<string, CachedInventory>());
  const cached = cache.get(host);
  if (!fresh && cached && Date.now() - cached.at < INVENTORY_TTL_MS) return cached.reading;
  const reading = provisioner().hostInventory(host);
  cache.set(host, { at: Date.now(), reading });
  reading.catch(() => cache.delete(host));
  return reading;
}

const subtract = (a: Size, b: Size): Size => ({
  memoryMb: a.memoryMb - b.memoryMb,
  vcpus: a.vcpus - b.vcpus,
  diskGb: a.diskGb - b.diskGb,
});

type LiveRow = { id: number; hostname: string; status: string; powerState: string | null };

/**
 * Compares what libvirt reports with the server rows: domains of our prefix with no live row on this host
 * (a build's leftover, a failed destroy, a domain made by hand), and provisioned rows whose domain is gone.
 */
export function compareWithRows(
  host: string,
  inventory: HostInventory,
  hostRows: LiveRow[],
  rowsById: Map<number, { status: string; hypervisor: string | null }>,
): Pick<
  Extract<LibvirtView, { status: "ok" }>,
  "assigned" | "otherDomains" | "strayDomains" | "missingDomains"
> {
  const ours = inventory.domains.filter((domain) => domain.serverId !== null);
  const others = inventory.domains.filter((domain) => domain.serverId === null);
  const strayDomains: StrayDomain[] = [];
  for (const domain of ours) {
    const row = rowsById.get(domain.serverId as number);
    const why = !row
      ? "no server row"
      : row.status === "terminated"
        ? "server terminated"
        : row.hypervisor !== host
          ? "server on another host"
          : undefined;
    if (why)
      strayDomains.push({ name: domain.name, serverId: domain.serverId, running: domain.running, why });
  }
  const present = new Set(ours.map((domain) => domain.serverId));
  const missingDomains = hostRows
    // Built servers only: one being built has no domain yet, a terminated one none any more.
    .filter((row) => (row.status === "active" || row.status === "suspended") && row.powerState !== null)
    .filter((row) => !present.has(row.id))
    .map((row) => ({ serverId: row.id, hostname: row.hostname, status: row.status }));
  const sum = (list: typeof inventory.domains) => ({
    memoryMb: list.reduce((total, domain) => total + domain.memoryMb, 0),
    vcpus: list.reduce((total, domain) => total + domain.vcpus, 0),
  });
  return {
    assigned: { ...sum(ours), domains: ours.length, running: ours.filter((domain) => domain.running).length },
    otherDomains: { count: others.length, ...sum(others) },
    strayDomains,
    missingDomains,
  };
}

async function libvirtView(host: HypervisorHost, rows: LiveRow[], database: Database, fresh: boolean) {
  if (provisioner().simulated) return { status: "simulated" } as const;
  let inventory: HostInventory | undefined;
  try {
    inventory = await inventoryOf(host.name, fresh);
  } catch (error) {
    return { status: "unreachable", error: firstLine(error).slice(0, 300) } as const;
  }
  if (!inventory) return { status: "unreachable", error: "the host is not configured" } as const;
  const ids = inventory.domains.flatMap((domain) => (domain.serverId === null ? [] : [domain.serverId]));
  const known =
    ids.length === 0
      ? []
      : await database
          .select({ id: servers.id, status: servers.status, hypervisor: servers.hypervisor })
          .from(servers)
          .where(inArray(servers.id, ids));
  const rowsById = new Map(known.map((row) => [row.id, row]));
  return {
    status: "ok",
    cpus: inventory.cpus,
    memoryMb: inventory.memoryMb,
    pool: inventory.pool,
    ...compareWithRows(host.name, inventory, rows, rowsById),
  } as const;
}

/**
 * Every configured host: its size, what is sold on it (servers and snapshots, as placement counts), what is
 * free, whether it is drained, the servers on it, and what libvirt reports (read at most every 10 s unless
 * `fresh`; all hosts at once).
 */
export async function hostViews(options: { fresh?: boolean } = {}, database?: Database): Promise<HostView[]> {
  database ??= await db();
  const hosts = serverSettings().hypervisors;
  if (hosts.length === 0) return [];
  const names = hosts.map((host) => host.name);
  const [rows, drains] = await Promise.all([
    database
      .select()
      .from(servers)
      .where(and(inArray(servers.hypervisor, names), ne(servers.status, "terminated")))
      .orderBy(servers.id),
    database
      .select({ name: hypervisors.name, at: hypervisors.drainedAt, reason: hypervisors.drainReason })
      .from(hypervisors)
      .where(inArray(hypervisors.name, names)),
  ]);
  const drainOf = new Map(drains.map((row) => [row.name, row]));
  const handle = database;
  return Promise.all(
    hosts.map(async (host) => {
      const own = rows.filter((row) => row.hypervisor === host.name);
      const capacity = { memoryMb: host.memoryMb, vcpus: host.vcpus, diskGb: host.diskGb };
      const sold = await usedOn(handle, host.name);
      const drain = drainOf.get(host.name);
      return {
        name: host.name,
        location: host.location,
        uri: host.uri,
        capacity,
        sold,
        free: subtract(capacity, sold),
        drained: drain?.at ? { at: drain.at.toISOString(), reason: drain.reason } : null,
        servers: own.map((row) => ({
          id: row.id,
          accountId: row.accountId,
          hostname: row.hostname,
          status: row.status,
          plan: row.plan,
          memoryMb: row.memoryMb ?? 0,
          vcpus: row.vcpus ?? 0,
          diskGb: row.diskGb ?? 0,
        })),
        libvirt: await libvirtView(host, own, handle, options.fresh ?? false),
      };
    }),
  );
}

const DRAIN_ACTIONS = { drain: "drain_host", undrain: "undrain_host" } as const;

function configuredHost(name: string): HypervisorHost {
  const host = serverSettings().hypervisors.find((candidate) => candidate.name === name);
  if (!host) throw notFound(`No host named ${name}.`);
  return host;
}

/**
 * Drains the host (no new order is placed there; what runs on it stays) or takes it back into service, with
 * the reason, recorded in the audit log in the same transaction. Draining a drained host keeps its first time.
 */
export async function setDrained(
  actor: Actor,
  name: string,
  drained: boolean,
  reason: string,
  database?: Database,
): Promise<void> {
  const host = configuredHost(name);
  database ??= await db();
  await database.transaction(async (tx) => {
    const { drained: was } = await lockHost(tx, host);
    if (was !== drained) {
      await tx
        .update(hypervisors)
        .set(
          drained ? { drainedAt: new Date(), drainReason: reason } : { drainedAt: null, drainReason: null },
        )
        .where(eq(hypervisors.name, host.name));
    }
    await recordAudit(tx, actor, {
      action: drained ? DRAIN_ACTIONS.drain : DRAIN_ACTIONS.undrain,
      target: `host:${host.name}`,
      reason,
      detail: { changed: was !== drained },
    });
  });
}
