import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import { pagePath } from "./pages";
import { queryKeys } from "./query-keys";
import type { Server } from "./types";

/** While a server is being built its status changes within seconds; afterwards nothing moves by itself soon. */
const PROVISIONING_POLL_MS = 2_000;

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

export const serverQuery = (id: number) =>
  queryOptions({
    queryKey: queryKeys.servers.one(id),
    queryFn: () => bffFetch<Server>(`/bff/servers/${id}`),
    refetchInterval: (query) => (query.state.data?.status === "provisioning" ? PROVISIONING_POLL_MS : false),
  });

/** Root credentials are read on demand only and never enter the query cache (see the reveal control). */
export const fetchCredentials = (id: number) =>
  bffFetch<{ username: "root"; password: string }>(`/bff/servers/${id}/credentials`);
