import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import { pagePath } from "./pages";
import { queryKeys } from "./query-keys";
import type { Resize, Server, ServerMetrics, SnapshotList } from "./types";

/** While a server is being built its status changes within seconds. */
const PROVISIONING_POLL_MS = 2_000;
/** Afterwards its traffic this period and the power state the host reports move slowly. */
const ACTIVE_POLL_MS = 60_000;

export type ServerPage = { servers: Server[]; next_cursor: string | null };

/** The server list, a page at a time (newest first); "Show more" fetches the page after the last one. */
export const serversQuery = () =>
  infiniteQueryOptions({
    queryKey: queryKeys.servers.all(),
    queryFn: ({ pageParam }) => bffFetch<ServerPage>(pagePath("/bff/servers", pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.servers.some((server) => server.status === "provisioning"))
        ? PROVISIONING_POLL_MS
        : false,
  });

/** A server the host is still changing: being built (or reinstalled, restored), or entering or leaving rescue. */
const isChanging = (server: Server | undefined) =>
  server?.status === "provisioning" ||
  server?.rescue?.state === "entering" ||
  server?.rescue?.state === "leaving";

export const serverQuery = (id: number) =>
  queryOptions({
    queryKey: queryKeys.servers.one(id),
    queryFn: () => bffFetch<Server>(`/bff/servers/${id}`),
    refetchInterval: (query) => {
      const server = query.state.data;
      return isChanging(server) ? PROVISIONING_POLL_MS : server?.status === "active" ? ACTIVE_POLL_MS : false;
    },
  });

export type MetricPeriod = ServerMetrics["period"];
export const METRIC_PERIODS: readonly MetricPeriod[] = ["1h", "24h", "7d", "30d"];

/** Until the first reading arrives (a new server) the graphs look again soon, then at the points' pace. */
const NO_DATA_POLL_MS = 5_000;
const hasData = (metrics: ServerMetrics | undefined) =>
  metrics?.series.cpu_percent.some((value) => value !== null) ?? false;

export const serverMetricsQuery = (id: number, period: MetricPeriod) =>
  queryOptions({
    queryKey: queryKeys.servers.metrics(id, period),
    queryFn: () => bffFetch<ServerMetrics>(`/bff/servers/${id}/metrics?period=${period}`),
    refetchInterval: (query) =>
      !hasData(query.state.data) ? NO_DATA_POLL_MS : period === "1h" ? 30_000 : 5 * 60_000,
  });

/**
 * Root credentials (and in rescue mode the rescue system's password) are read on demand only and never enter
 * the query cache (see the reveal controls).
 */
export const fetchCredentials = (id: number) =>
  bffFetch<{ username: "root"; password: string; rescue_password: string | null }>(
    `/bff/servers/${id}/credentials`,
  );

/** While a snapshot is being copied or removed its state changes by itself; otherwise nothing moves. */
const SNAPSHOT_POLL_MS = 2_000;

/** A server's snapshots, newest first, with how many it may keep; polled while one is being taken or removed. */
export const snapshotsQuery = (serverId: number) =>
  queryOptions({
    queryKey: queryKeys.servers.snapshots(serverId),
    queryFn: () => bffFetch<SnapshotList>(`/bff/servers/${serverId}/snapshots`),
    refetchInterval: (query) =>
      query.state.data?.snapshots.some((s) => s.state === "creating" || s.state === "deleting")
        ? SNAPSHOT_POLL_MS
        : false,
  });

/** A resize moves through its states within seconds to minutes; once done or failed nothing moves. */
const RESIZE_POLL_MS = 1_500;
const resizeMoving = (resize: Resize | undefined) =>
  resize?.state === "pending" || resize?.state === "running" || resize?.state === "reverting";

/** A server's resizes, newest first; polled while the latest is in progress. */
export const resizesQuery = (serverId: number) =>
  queryOptions({
    queryKey: queryKeys.servers.resizes(serverId),
    queryFn: () => bffFetch<{ resizes: Resize[] }>(`/bff/servers/${serverId}/resizes`),
    refetchInterval: (query) => (resizeMoving(query.state.data?.resizes[0]) ? RESIZE_POLL_MS : false),
  });
