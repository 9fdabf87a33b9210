"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { BffError, bffFetch } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { serverQuery } from "@/lib/dashboard/queries/servers";
import type { Server } from "@/lib/dashboard/queries/types";
import { apiUsdToCents } from "@/lib/util/cents";

/** A change to one server: the path under /bff/servers/{id} and how to send it. */
export type ServerChange = {
  path: string;
  method: string;
  body?: unknown;
  headers?: Record<string, string>;
};

/**
 * The server page's changes (renewal, auto-renew, power, termination): one at a time, each confirmed by a
 * notice once the API answers. Every change answers with the whole server, which goes into the cache so the
 * page shows it at once.
 */
export function useServerChange(serverId: number) {
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState("");
  const update = useMutation({
    mutationFn: (change: ServerChange) => bffFetch<Server>(`/bff/servers/${serverId}${change.path}`, change),
    onSuccess: (updated) => {
      queryClient.setQueryData(serverQuery(serverId).queryKey, updated);
      void queryClient.invalidateQueries({ queryKey: queryKeys.servers.all(), exact: true });
      void queryClient.invalidateQueries({ queryKey: queryKeys.account() });
    },
  });

  /** Sends `change`; on success shows `label` and runs `after`. */
  const act = (label: string, change: ServerChange, after?: () => void) => {
    setNotice("");
    update.mutate(change, {
      onSuccess: () => {
        setNotice(label);
        after?.();
      },
    });
  };

  const refusal = update.error instanceof BffError ? update.error : undefined;
  // A renewal the balance cannot cover says by how much: the page offers that top-up.
  const deficitCents =
    refusal?.code === "insufficient_balance" ? apiUsdToCents(Number(refusal.body.deficit ?? 0)) : 0;
  return { act, pending: update.isPending, error: update.error, notice, deficitCents };
}

export type ServerActions = ReturnType<typeof useServerChange>;
