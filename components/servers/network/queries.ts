import { queryOptions } from "@tanstack/react-query";
import { bffFetch } from "@/lib/dashboard/queries/bff-fetch";
import type { Schemas } from "@/lib/dashboard/queries/types";

/** The Network panel's own reads: under the server's key, so refreshing the server refreshes them too. */

export type Firewall = Schemas["Firewall"];
export type FirewallRule = Schemas["FirewallRule"];
export type FirewallRuleInput = Schemas["FirewallRuleInput"];
export type Simulation = Schemas["FirewallSimulation"];
export type Ptr = Schemas["Ptr"];
export type PtrList = Schemas["PtrList"];

/** While a change waits for the host, it is looked at again shortly. */
const PENDING_POLL_MS = 2_000;

export const networkKeys = {
  firewall: (id: number) => ["servers", id, "firewall"] as const,
  rdns: (id: number) => ["servers", id, "rdns"] as const,
};

export const firewallQuery = (id: number) =>
  queryOptions({
    queryKey: networkKeys.firewall(id),
    queryFn: () => bffFetch<Firewall>(`/bff/servers/${id}/firewall`),
    refetchInterval: (query) => (query.state.data?.state === "pending" ? PENDING_POLL_MS : false),
  });

export const rdnsQuery = (id: number) =>
  queryOptions({
    queryKey: networkKeys.rdns(id),
    queryFn: () => bffFetch<PtrList>(`/bff/servers/${id}/rdns`),
    refetchInterval: (query) =>
      query.state.data?.records.some((record) => record.state === "pending") ? PENDING_POLL_MS : false,
  });

/** A stored rule as the form sends it back: without its counts. */
export const asInput = ({ hits: _hits, ...rule }: FirewallRule): FirewallRuleInput => rule;
