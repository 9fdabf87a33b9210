import "server-only";
import { and, asc, eq, gt, inArray, lt } from "drizzle-orm";
import { type Database, db } from "@/lib/db/client";
import { acquireLease } from "@/lib/db/lease";
import { pace } from "@/lib/db/pace";
import { serverMetricState, serverMetrics, servers, serverTraffic } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { type ServerSettings, serverSettings } from "../config";
import { provisioner } from "../provisioner";
import { DemoUsageSource } from "./demo-source";
import { LibvirtUsageSource } from "./libvirt-source";
import type { LastReading, SampledServer, UsageSource } from "./source";
import { lastReadings, pruneServers, recordReadings, recordSlowdown, type SlowdownChange } from "./store";
import { TIERS } from "./tiers";

/** The demo's generated series with the simulated provisioner, the hosts' own counters with libvirt. */
export const usageSource = (): UsageSource =>
  processWide("metrics.source", () => {
    const settings = serverSettings();
    return provisioner().simulated
      ? new DemoUsageSource(settings.metricsIntervalSeconds)
      : new LibvirtUsageSource(settings);
  });

const SAMPLED_COLUMNS = {
  id: servers.id,
  plan: servers.plan,
  status: servers.status,
  powerState: servers.powerState,
  hypervisor: servers.hypervisor,
  vcpus: servers.vcpus,
  memoryMb: servers.memoryMb,
  createdAt: servers.createdAt,
  expiresAt: servers.expiresAt,
};

/** A speed change the host refused or could not make yet is tried again no sooner than this. */
const SLOWDOWN_RETRY_MS = 10 * 60_000;

/** One message per problem per 10 minutes: a host that is down must not flood the log. */
function logThrottled(key: string, message: string) {
  const logged = processWide("metrics.logged", () => new Map<string, number>());
  if ((logged.get(key) ?? 0) > Date.now()) return;
  logged.set(key, Date.now() + 10 * 60_000);
  console.error(message);
}

/** Asks the host for each speed change and records the ones it made. */
async function applySlowdowns(
  database: Database,
  source: UsageSource,
  host: string,
  sampled: SampledServer[],
  changes: SlowdownChange[],
  clock: () => Date,
): Promise<void> {
  const retryAt = processWide("metrics.slowdown-retry", () => new Map<number, number>());
  const byId = new Map(sampled.map((server) => [server.id, server]));
  for (const change of changes) {
    const server = byId.get(change.serverId);
    if (!server || (retryAt.get(change.serverId) ?? 0) > Date.now()) continue;
    try {
      if (await source.setSlowdown(host, server, change.running, change.mbps)) {
        await recordSlowdown(database, change, clock());
        retryAt.delete(change.serverId);
      } else retryAt.set(change.serverId, Date.now() + SLOWDOWN_RETRY_MS);
    } catch (error) {
      retryAt.set(change.serverId, Date.now() + SLOWDOWN_RETRY_MS);
      const what = change.mbps === null ? "freeing the network of" : `slowing to ${change.mbps} Mbit/s`;
      logThrottled(`slowdown:${change.serverId}`, `server ${change.serverId}: ${what}: ${firstLine(error)}`);
    }
  }
}

/** Servers recorded per transaction: a pass over a host of thousands gives way to requests between slices. */
export const SAMPLE_SLICE = 200;

/**
 * One sampling of a host: one reading of all its machines (a single call to a real host; the demo's
 * generated readings slice by slice), recorded (usage, traffic, notices) SAMPLE_SLICE servers at a time with
 * a pause between slices (lib/db/pace.ts), the speed changes that follow made on the host, and rows past
 * their retention deleted. Returns how many servers were read and how many the host reported.
 */
export async function sampleHost(
  database: Database,
  source: UsageSource,
  host: string,
  settings: Pick<ServerSettings, "metricsIntervalSeconds" | "trafficCapMb">,
  clock: () => Date = now,
  giveWay: () => Promise<void> = pace,
): Promise<{ servers: number; readings: number }> {
  const rows = await serversOn(database, source, host, giveWay);
  if (rows.length === 0) return { servers: 0, readings: 0 };
  // A real host is read once for all its machines; the demo generates each slice's from its last reading.
  const hostReading = source.demo ? undefined : await readAt(source, host, rows, new Map(), clock);
  let readingCount = 0;
  for (let start = 0; start < rows.length; start += SAMPLE_SLICE) {
    const slice = rows.slice(start, start + SAMPLE_SLICE);
    const ids = slice.map((row) => row.id);
    const { readings, at } =
      hostReading ?? (await readAt(source, host, slice, await lastReadings(database, ids), clock));
    const changes = await recordReadings(database, {
      host,
      servers: slice,
      readings,
      at,
      intervalSeconds: settings.metricsIntervalSeconds,
      trafficCapMb: settings.trafficCapMb,
    });
    await applySlowdowns(database, source, host, slice, changes, clock);
    await pruneServers(database, ids, at);
    readingCount += slice.filter((row) => readings.has(row.id)).length;
    await giveWay();
  }
  return { servers: rows.length, readings: hostReading ? hostReading.readings.size : readingCount };
}

/** Servers listed per statement: a host of thousands is listed without holding the loop for long. */
const LIST_PAGE = 500;

/** The host's running and suspended servers, in id order, a page at a time. */
async function serversOn(
  database: Database,
  source: UsageSource,
  host: string,
  giveWay: () => Promise<void>,
): Promise<SampledServer[]> {
  const rows: SampledServer[] = [];
  for (let after = 0; ; ) {
    const page = await database
      .select(SAMPLED_COLUMNS)
      .from(servers)
      .where(
        and(
          inArray(servers.status, ["active", "suspended"]),
          source.demo ? undefined : eq(servers.hypervisor, host),
          gt(servers.id, after),
        ),
      )
      .orderBy(asc(servers.id))
      .limit(LIST_PAGE);
    rows.push(...page.filter((server) => source.onHost(server, host)));
    const last = page.at(-1);
    if (!last || page.length < LIST_PAGE) return rows;
    after = last.id;
    await giveWay();
  }
}

/** A reading of `rows` and the moment it stands for. */
async function readAt(
  source: UsageSource,
  host: string,
  rows: SampledServer[],
  last: Map<number, LastReading>,
  clock: () => Date,
) {
  const asked = clock();
  const readings = await source.read(host, rows, last, asked);
  // A real host's counters are as of its answer; the demo's are generated for the moment asked.
  return { readings, at: source.demo ? asked : clock() };
}

/** Usage of a terminated server is kept as long as the longest tier, then deleted with its traffic figures. */
const KEEP_AFTER_TERMINATION_MS = Math.max(...TIERS.map((tier) => tier.keepSeconds)) * 1000;
const TERMINATED_BATCH = 200;

/** Deletes the usage rows of servers terminated longer ago than the longest tier keeps. */
export async function pruneTerminated(database: Database, at: Date): Promise<number> {
  const gone = await database
    .select({ id: serverMetricState.serverId })
    .from(serverMetricState)
    .innerJoin(servers, eq(servers.id, serverMetricState.serverId))
    .where(
      and(
        eq(servers.status, "terminated"),
        lt(servers.terminatedAt, new Date(at.getTime() - KEEP_AFTER_TERMINATION_MS)),
      ),
    )
    .limit(TERMINATED_BATCH);
  const ids = gone.map((row) => row.id);
  if (ids.length === 0) return 0;
  await database.transaction(async (tx) => {
    await tx.delete(serverMetrics).where(inArray(serverMetrics.serverId, ids));
    await tx.delete(serverTraffic).where(inArray(serverTraffic.serverId, ids));
    await tx.delete(serverMetricState).where(inArray(serverMetricState.serverId, ids));
  });
  return ids.length;
}

const PRUNE_TERMINATED_EVERY_MS = 10 * 60_000;

/**
 * One round of sampling: every host whose interval has passed is read by the instance holding its lease
 * (`metrics:<host>`), so several app instances never read one host at once; an instance that does not get a
 * lease tries again an interval later. Terminated servers' rows are deleted now and then.
 */
export async function runMetricsPass(): Promise<void> {
  const settings = serverSettings();
  const source = usageSource();
  const intervalMs = settings.metricsIntervalSeconds * 1000;
  const nextAt = processWide("metrics.next", () => new Map<string, number>());
  for (const host of source.hosts()) {
    if ((nextAt.get(host) ?? 0) > Date.now()) continue;
    nextAt.set(host, Date.now() + intervalMs);
    try {
      if (!(await acquireLease(`metrics:${host}`, Math.max(30_000, intervalMs * 4)))) continue;
      await sampleHost(await db(), source, host, settings);
    } catch (error) {
      logThrottled(`host:${host}`, `usage of host ${host}: ${firstLine(error)}`);
    }
  }
  const prune = processWide("metrics.prune", () => ({ nextAt: 0 }));
  if (prune.nextAt <= Date.now()) {
    prune.nextAt = Date.now() + PRUNE_TERMINATED_EVERY_MS;
    try {
      await pruneTerminated(await db(), now());
    } catch (error) {
      logThrottled("prune", `pruning usage of terminated servers: ${firstLine(error)}`);
    }
  }
}

/** Starts sampling once per process (from the background work); rounds never overlap. */
export function startMetricsSampling(): void {
  processWide("metrics.runner", () => {
    const intervalMs = serverSettings().metricsIntervalSeconds * 1000;
    let running = false;
    const timer = setInterval(
      async () => {
        if (running) return;
        running = true;
        try {
          await runMetricsPass();
        } finally {
          running = false;
        }
      },
      Math.max(250, Math.min(intervalMs / 2, 5_000)),
    );
    timer.unref();
    return timer;
  });
}
