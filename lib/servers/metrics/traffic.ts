import "server-only";
import { now } from "@/lib/clock";
import { config } from "@/lib/config/env";
import type { Database } from "@/lib/db/client";
import type { Tx } from "@/lib/ledger/ledger";
import type { Traffic } from "@/lib/schemas/metrics";
import type { Server } from "@/lib/schemas/servers";
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

/**
 * The servers as the API shows them, with this period's traffic read afresh (two indexed reads for all of
 * them). Inside a transaction pass it: the embedded database has one connection.
 */
export async function presentServers(database: Database | Tx, rows: ServerRow[]): Promise<Server[]> {
  const ids = rows.filter((row) => row.status !== "terminated").map((row) => row.id);
  const latest = await latestTraffic(database, ids);
  const states = await lastReadings(database, ids);
  const at = now();
  const settings = config().servers;
  return rows.map((row) =>
    presentServer(
      row,
      settings.graceDays,
      provisioner().name,
      presentTraffic(row, latest.get(row.id), states.get(row.id), at, settings.trafficCapMb),
    ),
  );
}

/** One server as the API shows it (see presentServers). */
export async function presentServerWithTraffic(database: Database | Tx, row: ServerRow): Promise<Server> {
  const [server] = await presentServers(database, [row]);
  if (!server) throw new Error("no server presented");
  return server;
}
