"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef } from "react";
import { bffFetch } from "@/lib/dashboard/queries/bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "@/lib/dashboard/queries/idempotency";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { Schemas } from "@/lib/dashboard/queries/types";

export type Order = Schemas["CreateServerRequest"];
type Created = Schemas["ServerCreated"];

/**
 * Places an order and opens the new server's page. One Idempotency-Key per intended order: a double click or a
 * retried request cannot order twice.
 */
export function useOrder() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const intent: IntentRef = useRef(undefined);
  return useMutation({
    mutationFn: (body: Order) =>
      bffFetch<Created>("/bff/servers", {
        method: "POST",
        body,
        headers: { "idempotency-key": idempotencyKeyFor(intent, body) },
      }),
    onSuccess: async (server) => {
      settleIntent(intent);
      await queryClient.invalidateQueries({ queryKey: queryKeys.account() });
      await queryClient.invalidateQueries({ queryKey: queryKeys.servers.all() });
      router.push(`/dashboard/servers/${server.id}`);
    },
    onError: async (error) => {
      settleIntent(intent, error);
      // A refusal for the balance means ours is stale: show the current one and its deficit.
      await queryClient.invalidateQueries({ queryKey: queryKeys.account() });
    },
  });
}
