import "server-only";
import { sql } from "drizzle-orm";
import type { Health } from "@/lib/api/schemas/health";
import { config } from "@/lib/config/env";
import { databaseHandle } from "@/lib/db/client";
import { readCursors } from "@/lib/rails/deposits/cursor";
import { nodeBehind } from "@/lib/rails/deposits/node-view";
import { flaggedPaymentCounts } from "@/lib/rails/deposits/sightings";
import { depositRails, staleAfterMs } from "@/lib/rails/setup";
import { serverSettings } from "@/lib/servers/config";
import { provisioner } from "@/lib/servers/provisioner";
import { processWide } from "@/lib/util/process-wide";
import { watcherProblem } from "./watcher-problem";

export const API_VERSION = "1.0.0";
/** The database is probed at most this often; health checks in between reuse the last answer. */
const PROBE_INTERVAL_MS = 2_000;

type Probe = { ok: boolean; kind: "pglite" | "postgres"; checkedAt: Date; watchers: Health["watchers"] };

/**
 * Each watcher as its row in chain_cursors shows it (the instance holding its lease writes that row), with
 * its node's push where one is configured. Public: its state and what is wrong in plain words; the node's
 * address and raw error are for the log only.
 */
export async function watcherHealth(): Promise<Health["watchers"]> {
  const { watchers } = depositRails();
  const cursors = await readCursors(watchers.map((watcher) => watcher.name));
  const flagged = await flaggedPaymentCounts();
  return watchers.map((watcher) => {
    const cursor = cursors.get(watcher.name);
    const checkedAt = cursor?.checkedAt ?? null;
    const polled = cursor !== undefined && cursor.headBlock >= 0;
    const status = cursor?.lastError
      ? "unreachable"
      : !checkedAt
        ? "starting"
        : Date.now() - checkedAt.getTime() > staleAfterMs()
          ? "stale"
          : "ok";
    // A node that answers may still be cut off from its network: what it said of itself tells.
    const behind =
      status === "ok" && cursor && watcher.expectations
        ? nodeBehind(
            {
              tip: cursor.headBlock,
              peers: cursor.nodePeers,
              headers: cursor.nodeHeaders,
              tipAt: cursor.nodeTipAt,
            },
            watcher.expectations,
            new Date(),
          )
        : null;
    const shown = watcher.demo ? "ok" : behind ? "behind" : status;
    return {
      name: watcher.name,
      networks: [...watcher.networks],
      demo: watcher.demo,
      status: shown,
      problem: behind ?? watcherProblem(shown, cursor?.lastError ?? null, staleAfterMs() / 1000),
      tip: polled ? cursor.headBlock : null,
      cursor: polled && cursor.scannedBlock >= 0 ? cursor.scannedBlock : null,
      lag: polled && cursor.scannedBlock >= 0 ? Math.max(0, cursor.headBlock - cursor.scannedBlock) : null,
      checked_at: checkedAt?.toISOString() ?? null,
      flagged_payments: watcher.networks.reduce((sum, network) => sum + (flagged.get(network) ?? 0), 0),
      push: watcher.push
        ? {
            status: cursor?.pushStatus ?? "waiting",
            missed: cursor?.pushMissed ?? 0,
            last_notice_at: cursor?.pushNoticeAt?.toISOString() ?? null,
          }
        : null,
    };
  });
}

async function probeDatabase(): Promise<Probe> {
  const kind = config().databaseUrl ? "postgres" : "pglite";
  try {
    const handle = await databaseHandle();
    await handle.db.execute(sql`SELECT 1`);
    return { ok: true, kind, checkedAt: new Date(), watchers: await watcherHealth() };
  } catch {
    return { ok: false, kind, checkedAt: new Date(), watchers: [] };
  }
}

/** The last database probe, refreshed when it is older than PROBE_INTERVAL_MS (one probe in flight at most). */
async function recentProbe(): Promise<Probe> {
  const state = processWide("health.probe", (): { last?: Probe; running?: Promise<Probe> } => ({}));
  if (state.last && Date.now() - state.last.checkedAt.getTime() < PROBE_INTERVAL_MS) return state.last;
  state.running ??= probeDatabase().finally(() => {
    state.running = undefined;
  });
  state.last = await state.running;
  return state.last;
}

export async function health(): Promise<Health> {
  const probe = await recentProbe();
  return {
    status: probe.ok ? "ok" : "unavailable",
    version: API_VERSION,
    mode: config().mode,
    database: {
      status: probe.ok ? "ok" : "unreachable",
      kind: probe.kind,
      checked_at: probe.checkedAt.toISOString(),
    },
    watchers: probe.watchers,
    provisioner: provisioner().name,
    demo_libvirt: serverSettings().demoLibvirt,
    time: new Date().toISOString(),
    // A 503 is an error like any other: it carries the error code and a message too.
    ...(probe.ok
      ? {}
      : { error: "service_unavailable" as const, message: "The database does not answer; retry shortly." }),
  };
}
