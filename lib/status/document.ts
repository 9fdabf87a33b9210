import "server-only";
import { sharedDocument } from "@/lib/api/route";
import type { Status, StatusOutcomes, StatusTiming } from "@/lib/api/schemas/status";
import { findLocation, findOs, LOCATIONS, OS_IMAGES } from "@/lib/catalog/catalog";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { pace } from "@/lib/db/pace";
import { hypervisors } from "@/lib/db/schema";
import { watcherHealth } from "@/lib/health/health";
import { depositSettings } from "@/lib/rails/deposits/config";
import { COINS, coinFacts, DEPOSIT_COINS } from "@/lib/rails/registry";
import { serverSettings } from "@/lib/servers/config";
import { READING_REWRITE_MS } from "@/lib/servers/host-readings";
import { BOOT_POLL_MS } from "@/lib/servers/jobs";
import { provisioner } from "@/lib/servers/provisioner";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { statusSettings } from "./config";
import { type Aggregate, measureStatusFigures, type Series, type Timing, type Windowed } from "./figures";
import { statusMethods } from "./method";
import { groupState, HOST_DOWN_AFTER_MS, hostState, overallState, type State, watcherState } from "./states";

/** The status document as served: its JSON text once, and its validator. */
export type StatusDocument = { body: Status; text: string; etag: string; computedAt: number };

const timing = (figure: Timing): StatusTiming => ({
  n: figure.n,
  p50_ms: figure.p50,
  p95_ms: figure.p95,
  p99_ms: figure.p99,
});

const outcomes = (figure: Aggregate<string>): StatusOutcomes => ({
  total: figure.total,
  succeeded: figure.succeeded,
  success_rate: figure.total === 0 ? null : Math.round((figure.succeeded / figure.total) * 10_000) / 10_000,
});

/** The same shape over both windows, as the document names them. */
const bothWindows = <T, R>(figures: Windowed<T>, shape: (figure: T) => R) => ({
  last_24h: shape(figures.day),
  last_7d: shape(figures.week),
});

const hourly = (series: Series) => ({ p50_ms: series.p50, p95_ms: series.p95 });

const locationName = (id: string) => {
  const location = findLocation(id);
  return location ? `${location.city}, ${location.country}` : id;
};

/** Where the catalog lists an id (locations, images, coins); ids it no longer lists come last. */
const rank = (ids: readonly string[], id: string) => {
  const index = ids.indexOf(id);
  return index === -1 ? ids.length : index;
};
const LOCATION_IDS = LOCATIONS.map((location) => location.id);
const OS_IDS = OS_IMAGES.map((os) => os.id);
const COIN_CODES: readonly string[] = COINS.map((coin) => coin.code);

/**
 * Each configured host's state, counted per location. None under the simulated provisioner: it never calls
 * the hosts configured beside it (they only place servers), so there is no reading to show.
 */
async function hostsByLocation(at: Date): Promise<Status["hosts"]> {
  const settings = serverSettings();
  const configured = settings.hypervisors;
  if (configured.length === 0 || settings.provisioner === "simulated") return [];
  const database = await db();
  const rows = await database
    .select({ name: hypervisors.name, readAt: hypervisors.readAt, failingSince: hypervisors.failingSince })
    .from(hypervisors);
  const readings = new Map(rows.map((row) => [row.name, row]));
  // A healthy host is written at most every READING_REWRITE_MS: older than that and a few passes is stale.
  const staleMs = READING_REWRITE_MS + 6 * depositSettings().watcherIntervalMs;
  const states = new Map<string, State[]>();
  for (const host of configured) {
    const list = states.get(host.location) ?? [];
    list.push(hostState(readings.get(host.name), at, staleMs));
    states.set(host.location, list);
  }
  return [...states.entries()]
    .sort(([a], [b]) => rank(LOCATION_IDS, a) - rank(LOCATION_IDS, b))
    .map(([location, list]) => ({
      location,
      location_name: locationName(location),
      total: list.length,
      up: list.filter((state) => state === "up").length,
      degraded: list.filter((state) => state === "degraded").length,
      down: list.filter((state) => state === "down").length,
      state: groupState(list),
    }));
}

/** Each deposit watcher by the coins it watches, from its health (no name, no node). */
async function watcherStates(): Promise<Status["watchers"]> {
  const watchers = await watcherHealth();
  return watchers.map((watcher) => ({
    coins: Object.values(DEPOSIT_COINS)
      .filter((coin) => watcher.networks.includes(coin.network))
      .map((coin) => coin.code),
    simulated: watcher.demo,
    state: watcherState(watcher.status),
  }));
}

/** Computes the whole document now, from the process database. */
export async function buildStatus(at: Date = now()): Promise<Status> {
  const settings = statusSettings();
  // Between two reads, requests waiting go first (and, on the embedded database, background work rests).
  const figures = await measureStatusFigures(await db(), at, pace);
  const hosts = await hostsByLocation(at);
  const watchers = await watcherStates();
  const orders = [...figures.orders.entries()]
    .map(([key, windows]) => {
      const [location = "", os = ""] = key.split(" ");
      return { location, os, windows };
    })
    .sort(
      (a, b) =>
        rank(LOCATION_IDS, a.location) - rank(LOCATION_IDS, b.location) ||
        rank(OS_IDS, a.os) - rank(OS_IDS, b.os),
    );
  return {
    generated_at: at.toISOString(),
    refresh_seconds: settings.refreshSeconds,
    mode: config().mode,
    provisioner: provisioner().name,
    state: overallState(
      hosts.map((host) => host.state),
      watchers.map((watcher) => watcher.state),
    ),
    orders: orders.map(({ location, os, windows }) => ({
      location,
      location_name: locationName(location),
      os,
      os_name: findOs(os)?.name ?? os,
      windows: bothWindows(windows, (figure) => ({
        orders: outcomes(figure),
        to_active: timing(figure.timings.to_active),
        to_ssh: timing(figure.timings.to_ssh),
      })),
    })),
    credits: [...figures.credits.entries()]
      .sort(([a], [b]) => rank(COIN_CODES, a) - rank(COIN_CODES, b))
      .map(([coin, windows]) => ({
        coin,
        coin_name: coinFacts(coin)?.name ?? coin,
        windows: bothWindows(windows, (figure) => timing(figure.timings.to_credit)),
      })),
    console: bothWindows(figures.consoles, (figure) => ({
      sessions: outcomes(figure),
      to_first_byte: timing(figure.timings.to_first_byte),
    })),
    webhooks: bothWindows(figures.webhooks, (figure) => ({
      deliveries: outcomes(figure),
      to_delivery: timing(figure.timings.to_delivery),
    })),
    hosts,
    watchers,
    series: {
      hour_starts: figures.series.hours.map((hour) => hour / 1000),
      to_active: hourly(figures.series.toActive),
      to_credit: hourly(figures.series.toCredit),
      to_first_byte: hourly(figures.series.toFirstByte),
      to_delivery: hourly(figures.series.toDelivery),
    },
    methods: statusMethods({
      refreshSeconds: settings.refreshSeconds,
      passSeconds: depositSettings().watcherIntervalMs / 1000,
      sshProbeSeconds: BOOT_POLL_MS / 1000,
      hostDownSeconds: HOST_DOWN_AFTER_MS / 1000,
    }),
  };
}

async function compute(): Promise<StatusDocument> {
  const body = await buildStatus();
  return { body, ...sharedDocument(body), computedAt: Date.now() };
}

/**
 * The status document, computed at most once per STATUS_REFRESH_SECONDS per process. Once one exists it is
 * served at once: an older one starts the next computation and is served until that ends (one at a time), so
 * no request waits for the figures but the very first. A failed computation keeps the last document.
 */
export async function currentStatus(): Promise<StatusDocument> {
  const state = processWide(
    "status.document",
    (): { last?: StatusDocument; next?: Promise<StatusDocument> } => ({}),
  );
  const ageMs = state.last ? Date.now() - state.last.computedAt : Number.POSITIVE_INFINITY;
  if (ageMs < statusSettings().refreshSeconds * 1000 && state.last) return state.last;
  state.next ??= compute()
    .then((document) => {
      state.last = document;
      return document;
    })
    .finally(() => {
      state.next = undefined;
    });
  if (!state.last) return state.next;
  state.next.catch((error) =>
    console.error(`status page: the figures were not computed: ${firstLine(error)}`),
  );
  return state.last;
}

/** How long a client may keep the document: until this process computes the next one. */
export function secondsFresh(document: StatusDocument): number {
  const left = document.computedAt + statusSettings().refreshSeconds * 1000 - Date.now();
  return Math.max(0, Math.floor(left / 1000));
}
