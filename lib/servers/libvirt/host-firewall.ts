import type { FirewallRule } from "@/lib/db/types";
import type { HostNetwork } from "../config";
import { serverIpv6Address } from "../network/addresses";
import {
  type Counter,
  type FirewallTable,
  removalScript,
  revisionOf,
  swapScript,
  tableName,
} from "../network/compile";
import { type HostCommand, HostCommandError, runEachOnHost, runOnHost } from "./host-shell";

/**
 * A server's network on a bridged host: its nftables table (compile.ts), swapped in one `nft -f` transaction,
 * and for a server with a /64 the host's route to it (via its `::1`) with that address's neighbour entry pinned
 * to the server's MAC, so no other guest can answer for it. All of it is applied before the machine starts
 * and again whenever the rules change; the table matches the server's addresses, not its tap, so it holds
 * across stops, reboots and rebuilds of the machine.
 */

/** What the firewall is made of, besides the server's addresses. */
export type FirewallState = { rules: FirewallRule[]; smtpOpen: boolean; revision: number };

/** Where the server is on its host. */
export type HostPlace = {
  uri: string;
  network: HostNetwork;
  domain: string;
  mac: string;
  ipv4: string | null;
  ipv6Prefix: string | null;
  linkLocal: string | null;
};

type ListedRule = { rule?: { comment?: string; expr?: { counter?: Counter }[] } };

/** The counts of a table as `nft -j list table` prints it, summed by rule comment, and its revision. */
export function parseTableListing(json: string): { counters: Map<string, Counter>; revision?: number } {
  const counters = new Map<string, Counter>();
  const comments: string[] = [];
  for (const item of (JSON.parse(json) as { nftables?: ListedRule[] }).nftables ?? []) {
    const comment = item.rule?.comment;
    if (!comment) continue;
    comments.push(comment);
    const count = item.rule?.expr?.find((expr) => expr.counter)?.counter;
    if (!count) continue;
    const sum = counters.get(comment) ?? { packets: 0, bytes: 0 };
    counters.set(comment, { packets: sum.packets + count.packets, bytes: sum.bytes + count.bytes });
  }
  return { counters, revision: revisionOf(comments) };
}

const missingTable = (error: unknown) =>
  error instanceof HostCommandError && /No such file or directory|does not exist/i.test(error.stderr);

/** The server's table as it is on the host now: its counts and revision, or undefined when it has none. */
export async function readTable(place: HostPlace) {
  try {
    const listed = await runOnHost(
      place.uri,
      [["nft", "-j", "list", "table", "inet", tableName(place.domain)]],
      {
        timeoutMs: 15_000,
      },
    );
    return parseTableListing(listed);
  } catch (error) {
    if (missingTable(error)) return undefined;
    throw error;
  }
}

/** The host commands that route the server's /64 to it and pin its address to its card. */
function routeCommands(place: HostPlace): HostCommand[] {
  if (!place.ipv6Prefix) return [];
  const address = serverIpv6Address(place.ipv6Prefix);
  const bridge = place.network.bridge;
  return [
    ["ip", "-6", "neigh", "replace", address, "lladdr", place.mac, "dev", bridge, "nud", "permanent"],
    ["ip", "-6", "route", "replace", place.ipv6Prefix, "via", address, "dev", bridge, "onlink"],
  ];
}

/** Swaps the server's table for one of `state` (keeping its rules' counts) and sets its route. */
export async function applyFirewall(place: HostPlace, state: FirewallState): Promise<void> {
  const current = await readTable(place);
  const table: FirewallTable = {
    table: tableName(place.domain),
    revision: state.revision,
    ipv4: place.ipv4,
    ipv6Prefix: place.ipv6Prefix,
    linkLocal: place.linkLocal,
    rules: state.rules,
    smtpOpen: state.smtpOpen,
    carried: current?.counters,
  };
  await runOnHost(place.uri, [["nft", "-f", "-"], ...routeCommands(place)], { input: swapScript(table) });
}

/** Removes the server's table, route and pinned neighbour entry; what is already gone is no error. */
export async function removeFirewall(place: HostPlace): Promise<void> {
  await runOnHost(place.uri, [["nft", "-f", "-"]], { input: removalScript(tableName(place.domain)) });
  if (!place.ipv6Prefix) return;
  const address = serverIpv6Address(place.ipv6Prefix);
  await runEachOnHost(place.uri, [
    ["ip", "-6", "route", "del", place.ipv6Prefix, "dev", place.network.bridge],
    ["ip", "-6", "neigh", "del", address, "dev", place.network.bridge],
  ]);
}

/** The names of the firewall tables on a host (every server's, whichever app instance wrote them). */
export async function listTables(uri: string): Promise<Set<string>> {
  const listed = await runOnHost(uri, [["nft", "-j", "list", "tables", "inet"]], { timeoutMs: 15_000 });
  const items = (JSON.parse(listed) as { nftables?: { table?: { name: string } }[] }).nftables ?? [];
  return new Set(items.flatMap((item) => (item.table ? [item.table.name] : [])));
}
