"use client";

import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatUtc } from "@/components/servers/status-badge";
import { Alert, TEXT_STYLES } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ShowMore } from "@/components/ui/show-more";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { deliveriesQuery } from "@/lib/dashboard/queries/notifications";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { Delivery } from "@/lib/dashboard/queries/types";

const STATE_WORDS: Record<Delivery["state"], string> = {
  pending: "waiting",
  sending: "sending",
  delivered: "delivered",
  failed: "failed",
};

/** When an attempt was due and when it went: a queue that lags shows here (BTCPay's lesson). */
function AttemptLine({ attempt }: { attempt: Delivery["attempts"][number] }) {
  const lagMs = Date.parse(attempt.sent_at) - Date.parse(attempt.queued_at);
  return (
    <li data-testid="attempt" className="text-xs">
      #{attempt.number}
      {attempt.manual ? " (redelivery)" : ""}: due {formatUtc(attempt.queued_at)}, sent{" "}
      {lagMs >= 1_000 ? `${Math.round(lagMs / 1000)} s later` : "at once"}, {attempt.duration_ms} ms,{" "}
      <span className={attempt.succeeded ? "" : TEXT_STYLES.error}>
        {attempt.response_status !== null ? `HTTP ${attempt.response_status}` : attempt.error}
      </span>
      {attempt.response_excerpt && (
        <span className={`block truncate ${TEXT_STYLES.muted}`} title={attempt.response_excerpt}>
          {attempt.response_excerpt}
        </span>
      )}
    </li>
  );
}

/** An endpoint's delivery log: each event, its state, every attempt, and a redelivery button. */
export function Deliveries({ webhookId, enabled }: { webhookId: number; enabled: boolean }) {
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(deliveriesQuery(webhookId));
  const [open, setOpen] = useState<number>();
  const redeliver = useMutation({
    mutationFn: (deliveryId: number) =>
      bffFetch(`/bff/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, { method: "POST" }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.deliveries(webhookId) }),
  });
  const deliveries = list.data?.pages.flatMap((page) => page.deliveries) ?? [];
  if (list.isPending) return <p className={`text-sm ${TEXT_STYLES.muted}`}>Loading deliveries…</p>;
  return (
    <div className="space-y-2">
      {list.error && !list.isFetchNextPageError && <Alert>{errorMessage(list.error)}</Alert>}
      {redeliver.error && <Alert>{errorMessage(redeliver.error)}</Alert>}
      {deliveries.length === 0 ? (
        <p data-testid="no-deliveries" className={`text-sm ${TEXT_STYLES.muted}`}>
          Nothing sent yet. Send a test to see one here.
        </p>
      ) : (
        <ul className="space-y-2">
          {deliveries.map((delivery) => (
            <li
              key={delivery.id}
              data-testid="delivery"
              className="rounded border border-zinc-200 p-2 text-sm dark:border-zinc-800"
            >
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <code className="text-xs">{delivery.event.type}</code>
                <span data-testid="delivery-state" className="font-medium">
                  {STATE_WORDS[delivery.state]}
                </span>
                <span className={TEXT_STYLES.muted}>
                  queued {formatUtc(delivery.queued_at)}
                  {delivery.delivered_at ? `, delivered ${formatUtc(delivery.delivered_at)}` : ""}
                  {delivery.next_attempt_at ? `, next attempt ${formatUtc(delivery.next_attempt_at)}` : ""}
                </span>
                <Button onClick={() => setOpen(open === delivery.id ? undefined : delivery.id)}>
                  {open === delivery.id ? "Hide attempts" : `Attempts (${delivery.attempts.length})`}
                </Button>
                {enabled && (delivery.state === "delivered" || delivery.state === "failed") && (
                  <Button disabled={redeliver.isPending} onClick={() => redeliver.mutate(delivery.id)}>
                    Redeliver
                  </Button>
                )}
              </div>
              {delivery.failure_reason && (
                <p className={`text-xs ${TEXT_STYLES.error}`}>{delivery.failure_reason}</p>
              )}
              {open === delivery.id && (
                <div className="mt-1 space-y-1">
                  <p className={`text-xs ${TEXT_STYLES.muted}`}>
                    webhook-id <code>{delivery.event.id}</code>
                  </p>
                  <ol className="space-y-1">
                    {delivery.attempts.map((attempt) => (
                      <AttemptLine key={attempt.number} attempt={attempt} />
                    ))}
                  </ol>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <ShowMore list={list} what="deliveries" />
    </div>
  );
}
