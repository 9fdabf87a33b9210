"use client";

import { useSuspenseInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Alert, TEXT_STYLES } from "@/components/ui/alert";
import { findLocation, findPlan } from "@/lib/catalog/catalog";
import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { serversQuery } from "@/lib/dashboard/queries/servers";
import { ShowMore } from "../ui/show-more";
import { formatUtc, StatusBadge } from "./status-badge";

/** The account's servers (the first page prefetched by the page), refreshed while any of them is being built. */
export function ServerList() {
  const list = useSuspenseInfiniteQuery(serversQuery());
  const { data, error } = list;
  const [showTerminated, setShowTerminated] = useState(false);
  const all = data?.pages.flatMap((page) => page.servers) ?? [];
  const terminatedCount = all.filter((server) => server.status === "terminated").length;
  const servers = showTerminated ? all : all.filter((server) => server.status !== "terminated");

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <Link
          prefetch={false}
          href="/dashboard/order"
          className="rounded bg-zinc-900 px-4 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900"
        >
          Order a server
        </Link>
        {terminatedCount > 0 && (
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={showTerminated}
              onChange={(e) => setShowTerminated(e.target.checked)}
            />
            Show terminated ({terminatedCount})
          </label>
        )}
      </div>
      {error && <Alert>{errorMessage(error)} The list below may be out of date.</Alert>}
      {servers.length === 0 ? (
        <p className="rounded border border-dashed border-zinc-300 p-6 text-center dark:border-zinc-700">
          No servers yet. Order one and it is ready in about a minute.
        </p>
      ) : (
        <>
          {/* On a phone each server is a card: six columns do not fit its width. */}
          <ul aria-label="Servers" className="space-y-2 sm:hidden">
            {servers.map((server) => (
              <li
                key={server.id}
                className="space-y-1 rounded border border-zinc-200 p-3 text-sm dark:border-zinc-800"
              >
                <p className="flex flex-wrap items-center justify-between gap-2">
                  <Link
                    prefetch={false}
                    href={`/dashboard/servers/${server.id}`}
                    className="break-all font-medium underline"
                  >
                    {server.hostname}
                  </Link>
                  <StatusBadge status={server.status} />
                </p>
                <p className="font-mono">{server.ip ?? "—"}</p>
                <p className={TEXT_STYLES.muted}>
                  {findPlan(server.plan)?.name ?? server.plan} ·{" "}
                  {findLocation(server.location)?.city ?? server.location} · paid until{" "}
                  {formatUtc(server.expires_at)}
                </p>
              </li>
            ))}
          </ul>
          <div className="hidden overflow-x-auto sm:block">
            <table className="w-full text-left text-sm" aria-label="Servers">
              <thead>
                <tr className={TEXT_STYLES.muted}>
                  <th className="py-2 pr-3">Host name</th>
                  <th className="pr-3">Status</th>
                  <th className="pr-3">IPv4</th>
                  <th className="pr-3">Plan</th>
                  <th className="pr-3">Location</th>
                  <th className="pr-3">Paid until</th>
                </tr>
              </thead>
              <tbody>
                {servers.map((server) => (
                  <tr key={server.id} className="border-t border-zinc-200 dark:border-zinc-800">
                    <td className="py-2 pr-3">
                      <Link
                        prefetch={false}
                        href={`/dashboard/servers/${server.id}`}
                        className="font-medium underline"
                      >
                        {server.hostname}
                      </Link>
                    </td>
                    <td className="pr-3">
                      <StatusBadge status={server.status} />
                    </td>
                    <td className="pr-3 font-mono">{server.ip ?? "—"}</td>
                    <td className="pr-3">{findPlan(server.plan)?.name ?? server.plan}</td>
                    <td className="pr-3">{findLocation(server.location)?.city ?? server.location}</td>
                    <td className="pr-3">{formatUtc(server.expires_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <ShowMore list={list} what="servers" />
    </div>
  );
}
