import "server-only";
import type { Traffic } from "@/lib/api/schemas/metrics";
import type { Server } from "@/lib/api/schemas/servers";
import type { Database, Tx } from "@/lib/db/client";
import { createVersionedCache } from "@/lib/db/versioned-cache";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";
import { serverSettings } from "../config";
import { presentServer, type ServerRow } from "../present";
import { provisioner } from "../provisioner";
import { currentTraffic, lastReadings, latestTraffic, type StateRow, type TrafficRow } from "./store";

/** A server's traffic this period as the API shows it; null once terminated. */
export function presentTraffic(
  row: ServerRow,
  latest: TrafficRow | undefined,
  state: StateRow | undefined,
  at: Date,
  trafficCapMb: number | undefined,
): Traffic | null {
  if (row.status === "terminated") return null;
  const period = currentTraffic(row, latest, at, trafficCapMb);
  // The slowdown in force belongs to the period that reached its allowance; a new period has freed it, or
  // is about to (the next sampling tells the host).
  const slowed = period.reached100At ? (state?.slowedMbps ?? null) : null;
  return {
    period_start: period.periodStart.toISOString(),
    period_end: period.periodEnd.toISOString(),
    allowance_bytes: period.allowanceBytes,
    outbound_bytes: period.txBytes,
    inbound_bytes: period.rxBytes,
    used_percent:
      period.allowanceBytes > 0 ? Math.round((period.txBytes / period.allowanceBytes) * 1000) / 10 : 0,
    reached_80_percent_at: period.reached80At?.toISOString() ?? null,
    reached_100_percent_at: period.reached100At?.toISOString() ?? null,
    slowed_to_mbps: slowed,
  };
}

type StoredTraffic = { latest: TrafficRow | undefined; state: StateRow | undefined };

const TRAFFIC_CACHE_ENTRIES = 20_000;
/** The longest a server's stored traffic is reused, whatever the interval. */
const TRAFFIC_REUSE_MAX_MS = 10_000;

/**
 * The servers' stored traffic rows. They change only when their host is read, once per sampling interval,
 * so each server's are reused for half an interval (at most 10 s): reading a server, which the revision
 * cache otherwise answers without a query, stays cheap under load, and the figures lag by at most one and a
 * half intervals. Terminated servers have none.
 */
async function storedTraffic(
  database: Database | Tx,
  ids: number[],
  intervalSeconds: number,
): Promise<Map<number, StoredTraffic>> {
  const cache = processWide("servers.traffic-cache", () => createVersionedCache(TRAFFIC_CACHE_ENTRIES));
  const at = Date.now();
  const found = new Map<number, StoredTraffic>();
  const missing: number[] = [];
  for (const id of ids) {
    const hit = cache.get<StoredTraffic>(String(id), 0, at);
    if (hit) found.set(id, hit.value);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const latest = await latestTraffic(database, missing);
  const states = await lastReadings(database, missing);
  const staleAt = at + Math.min(TRAFFIC_REUSE_MAX_MS, (intervalSeconds * 1000) / 2);
  for (const id of missing) {
    const stored = { latest: latest.get(id), state: states.get(id) };
    cache.set(String(id), 0, stored, staleAt);
    found.set(id, stored);
  }
  return found;
}

/**
 * The servers as the API shows them, with this period's traffic (two indexed reads for those whose stored
 * figures are not fresh: see storedTraffic). Inside a transaction pass it: the embedded database has one
 * connection.
 */
export async function presentServers(database: Database | Tx, rows: ServerRow[]): Promise<Server[]> {
  const settings = serverSettings();
  const ids = rows.filter((row) => row.status !== "terminated").map((row) => row.id);
  const stored = await storedTraffic(database, ids, settings.metricsIntervalSeconds);
  const at = now();
  return rows.map((row) =>
    presentServer(
      row,
      settings.graceDays,
      provisioner().name,
      presentTraffic(row, stored.get(row.id)?.latest, stored.get(row.id)?.state, at, settings.trafficCapMb),
    ),
  );
}

/** One server as the API shows it (see presentServers). */
export async function presentServerWithTraffic(database: Database | Tx, row: ServerRow): Promise<Server> {
  const [server] = await presentServers(database, [row]);
  if (!server) throw new Error("no server presented");
  return server;
}
