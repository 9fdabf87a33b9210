import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { isFinalStatus } from "@/lib/topups/view";
import { bffFetch } from "./bff-fetch";
import { pagePath } from "./pages";
import { queryKeys } from "./query-keys";
import type { Topup } from "./types";

/** How often a pending top-up is asked again: the API settles what arrived as it answers. */
export const PENDING_POLL_MS = 2_000;
const HISTORY_POLL_MS = 5_000;

export type TopupPage = { topups: Topup[]; next_cursor: string | null };

/** The top-up history, a page at a time (newest first), polled while any top-up shown is still open. */
export const topupsQuery = () =>
  infiniteQueryOptions({
    queryKey: queryKeys.topups.all(),
    queryFn: ({ pageParam }) => bffFetch<TopupPage>(pagePath("/bff/topups", pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.topups.some((topup) => !isFinalStatus(topup.status)))
        ? HISTORY_POLL_MS
        : false,
  });

/** One top-up, polled while it is pending and never again once it reached a final state. */
export const topupQuery = (ref: string) =>
  queryOptions({
    queryKey: queryKeys.topups.one(ref),
    queryFn: () => bffFetch<Topup>(`/bff/topups/${encodeURIComponent(ref)}`),
    refetchInterval: (query) => {
      // A top-up that cannot be read at all (not found) is not asked again; a passing failure is.
      if (query.state.status === "error" && !query.state.data) return false;
      const topup = query.state.data;
      return topup && isFinalStatus(topup.status) ? false : PENDING_POLL_MS;
    },
    refetchIntervalInBackground: true,
  });
