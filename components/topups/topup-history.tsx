"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Alert, TEXT_STYLES } from "@/components/ui/alert";
import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { topupsQuery } from "@/lib/dashboard/queries/topups";
import { formatApiUsd } from "@/lib/util/cents";
import { ShowMore } from "../ui/show-more";
import { StatusBadge } from "./status-badge";

/** Every top-up, newest first; a pending one can be reopened to pay or follow it. */
export function TopupHistory() {
  const list = useInfiniteQuery(topupsQuery());
  const { data, error, isPending } = list;
  if (isPending) return <p>Loading top-ups…</p>;
  if (error) {
    return <Alert>{errorMessage(error)}</Alert>;
  }
  const topups = data.pages.flatMap((page) => page.topups);
  if (topups.length === 0) return <p className="text-sm">No top-ups yet.</p>;
  return (
    <div className="space-y-3">
      {/* On a phone each top-up is a card: the table's six columns do not fit its width. */}
      <ul aria-label="Top-up history" className="space-y-2 sm:hidden">
        {topups.map((topup) => (
          <li
            key={topup.ref}
            className="space-y-1 rounded border border-zinc-200 p-3 text-sm dark:border-zinc-800"
          >
            <p className="flex flex-wrap items-center justify-between gap-2">
              <span className="font-medium">
                {formatApiUsd(topup.amount_usd)} in {topup.coin}
              </span>
              <StatusBadge status={topup.status} />
            </p>
            <p className={TEXT_STYLES.muted}>
              {topup.created_at.slice(0, 16).replace("T", " ")} · credited {formatApiUsd(topup.credited_usd)}
            </p>
            <Link prefetch={false} href={`/dashboard/topups/${topup.ref}`} className="underline">
              {topup.status === "pending" ? "Open" : "Details"}
              <span className="sr-only"> {topup.ref}</span>
            </Link>
          </li>
        ))}
      </ul>
      <div className="hidden overflow-x-auto sm:block">
        <table className="w-full text-left text-sm" aria-label="Top-up history">
          <thead>
            <tr>
              <th className="py-2">Created</th>
              <th>Amount</th>
              <th>Paid with</th>
              <th>Status</th>
              <th>Credited</th>
              <th>
                <span className="sr-only">Details</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {topups.map((topup) => (
              <tr key={topup.ref} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="py-2">{topup.created_at.slice(0, 16).replace("T", " ")}</td>
                <td>{formatApiUsd(topup.amount_usd)}</td>
                <td>{topup.coin}</td>
                <td>
                  <StatusBadge status={topup.status} />
                </td>
                <td>{formatApiUsd(topup.credited_usd)}</td>
                <td className="text-right">
                  <Link prefetch={false} href={`/dashboard/topups/${topup.ref}`} className="underline">
                    {topup.status === "pending" ? "Open" : "Details"}
                    <span className="sr-only"> {topup.ref}</span>
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ShowMore list={list} what="top-ups" />
    </div>
  );
}
