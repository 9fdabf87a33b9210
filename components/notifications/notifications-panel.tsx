"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { formatUtc } from "@/components/servers/status-badge";
import { Alert, TEXT_STYLES } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Panel } from "@/components/ui/panel";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { webhooksQuery } from "@/lib/dashboard/queries/notifications";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { Webhook, WebhookCreated } from "@/lib/dashboard/queries/types";
import { Deliveries } from "./deliveries";
import { EndpointForm } from "./endpoint-form";

/** One endpoint: where it goes, what it takes, whether it is on (and why not), its actions and its log. */
function EndpointCard({ webhook }: { webhook: Webhook }) {
  const queryClient = useQueryClient();
  // A first load still running began before this change (a test just queued): invalidating would only wait
  // for it, so it is cancelled and loaded again.
  const refresh = async () => {
    await queryClient.cancelQueries({ queryKey: queryKeys.webhooks.all() });
    await queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all() });
  };
  const [notice, setNotice] = useState("");
  const [rotated, setRotated] = useState<string>();
  const act = useMutation({
    mutationFn: (call: { path: string; method: string; body?: unknown; done: string }) =>
      bffFetch<WebhookCreated | Record<string, unknown>>(`/bff/webhooks/${webhook.id}${call.path}`, {
        method: call.method,
        body: call.body,
      }).then((result) => ({ result, done: call.done })),
    onSuccess: ({ result, done }) => {
      setNotice(done);
      if ("secret" in result && typeof result.secret === "string") setRotated(result.secret);
    },
    onSettled: refresh,
  });
  const name = webhook.kind === "ntfy" ? "push topic" : "webhook";
  return (
    <li data-testid="webhook" className="space-y-3 rounded border border-zinc-300 p-4 dark:border-zinc-700">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-medium break-all">{webhook.url}</span>
        <span className={`text-sm ${TEXT_STYLES.muted}`}>
          {webhook.kind === "ntfy" ? "ntfy push" : "webhook"}
        </span>
        <span
          data-testid="webhook-state"
          className={
            webhook.enabled
              ? "text-sm text-green-700 dark:text-green-400"
              : "text-sm text-amber-800 dark:text-amber-300"
          }
        >
          {webhook.enabled ? "on" : "off"}
        </span>
      </div>
      {webhook.description && <p className="text-sm">{webhook.description}</p>}
      {webhook.disabled_reason && (
        <p data-testid="webhook-disabled" className="text-sm text-amber-800 dark:text-amber-300">
          {webhook.disabled_reason} ({formatUtc(webhook.disabled_at)})
        </p>
      )}
      {webhook.enabled && webhook.failing_since && (
        <p className="text-sm text-amber-800 dark:text-amber-300">
          Failing since {formatUtc(webhook.failing_since)}: it is turned off if nothing gets through for days.
        </p>
      )}
      <p className={`text-xs ${TEXT_STYLES.muted}`}>
        Events: {webhook.events.join(", ")}
        {webhook.previous_secret_expires_at &&
          `. The previous secret also signs until ${formatUtc(webhook.previous_secret_expires_at)}.`}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button
          disabled={act.isPending || !webhook.enabled}
          onClick={() => act.mutate({ path: "/test", method: "POST", done: "Test event queued." })}
        >
          Send test
        </Button>
        <Button
          disabled={act.isPending}
          onClick={() =>
            act.mutate({
              path: "",
              method: "PATCH",
              body: { enabled: !webhook.enabled },
              done: webhook.enabled ? `The ${name} is off.` : `The ${name} is on.`,
            })
          }
        >
          {webhook.enabled ? "Turn off" : "Turn on"}
        </Button>
        {webhook.kind === "webhook" && (
          <Button
            disabled={act.isPending}
            onClick={() =>
              act.mutate({ path: "/rotate-secret", method: "POST", body: {}, done: "New secret made." })
            }
          >
            Rotate secret
          </Button>
        )}
        <Button
          variant="danger"
          disabled={act.isPending}
          onClick={() => act.mutate({ path: "", method: "DELETE", done: `The ${name} is deleted.` })}
        >
          Delete
        </Button>
      </div>
      <p aria-live="polite" className="text-sm">
        {notice && <span data-testid="webhook-notice">{notice}</span>}
        {act.error && <Alert as="span">{errorMessage(act.error)}</Alert>}
      </p>
      {rotated && (
        <div
          role="alert"
          className="space-y-2 rounded border border-amber-400 bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          <p>The new signing secret, shown once. The previous one keeps signing beside it for 24 hours.</p>
          <code className="block break-all">{rotated}</code>
          <CopyButton value={rotated} label="Copy secret" />
        </div>
      )}
      <details>
        <summary className="cursor-pointer text-sm font-medium">Deliveries</summary>
        <div className="mt-2">
          <Deliveries webhookId={webhook.id} enabled={webhook.enabled} />
        </div>
      </details>
    </li>
  );
}

/**
 * Notifications without e-mail: the account's webhooks and push topics, a form to add one, and per endpoint
 * a test send, on/off, secret rotation, deletion and its delivery log with redelivery.
 */
export function NotificationsPanel() {
  const { data, error } = useQuery(webhooksQuery());
  const webhooks = data?.webhooks ?? [];
  return (
    <div className="space-y-8">
      <Panel id="endpoints" title="Your endpoints">
        {error && <Alert>{errorMessage(error)}</Alert>}
        {data && webhooks.length === 0 && (
          <p data-testid="no-webhooks" className={`text-sm ${TEXT_STYLES.muted}`}>
            None yet: add a webhook or a push topic below.
          </p>
        )}
        <ul className="space-y-4">
          {webhooks.map((webhook) => (
            <EndpointCard key={webhook.id} webhook={webhook} />
          ))}
        </ul>
      </Panel>
      <Panel id="add-endpoint" title="Add a webhook or a push topic">
        <EndpointForm />
      </Panel>
    </div>
  );
}
