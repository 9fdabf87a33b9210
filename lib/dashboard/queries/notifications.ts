import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { bffFetch } from "./bff-fetch";
import { pagePath } from "./pages";
import { queryKeys } from "./query-keys";
import type { Delivery, ExpiryWarnings, Webhook } from "./types";

/** While a delivery waits for an attempt its log changes within a second or two. */
const DELIVERING_POLL_MS = 1_000;
/** Otherwise new events arrive now and then. */
const IDLE_POLL_MS = 15_000;

export const webhooksQuery = () =>
  queryOptions({
    queryKey: queryKeys.webhooks.all(),
    queryFn: () => bffFetch<{ webhooks: Webhook[] }>("/bff/webhooks"),
  });

export type DeliveryPage = { deliveries: Delivery[]; next_cursor: string | null };

const inFlight = (page: DeliveryPage) =>
  page.deliveries.some((delivery) => delivery.state === "pending" || delivery.state === "sending");

/** An endpoint's delivery log, newest first, a page at a time; polled faster while something is in flight. */
export const deliveriesQuery = (webhookId: number) =>
  infiniteQueryOptions({
    queryKey: queryKeys.webhooks.deliveries(webhookId),
    queryFn: ({ pageParam }) =>
      bffFetch<DeliveryPage>(pagePath(`/bff/webhooks/${webhookId}/deliveries`, pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
    refetchInterval: (query) => (query.state.data?.pages.some(inFlight) ? DELIVERING_POLL_MS : IDLE_POLL_MS),
  });

export const expiryWarningsQuery = (serverId: number) =>
  queryOptions({
    queryKey: queryKeys.servers.expiryWarnings(serverId),
    queryFn: () => bffFetch<ExpiryWarnings>(`/bff/servers/${serverId}/expiry-warnings`),
  });
