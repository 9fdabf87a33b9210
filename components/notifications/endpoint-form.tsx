"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Alert, TEXT_STYLES } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { INPUT_STYLE } from "@/components/ui/field";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { WebhookCreated } from "@/lib/dashboard/queries/types";
import { type EndpointKind, EVENT_TYPES } from "@/lib/db/types";
import { EVENT_DESCRIPTIONS } from "@/lib/notifications/types";

/**
 * Adds a webhook (signed JSON) or an ntfy push topic, with the events it takes (all by default). A webhook's
 * secret is shown here once, with a copy button; it lives in this component only.
 */
export function EndpointForm() {
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<EndpointKind>("webhook");
  const [secret, setSecret] = useState<string>();
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      bffFetch<WebhookCreated>("/bff/webhooks", { method: "POST", body }),
    gcTime: 0,
    onSuccess: async (created) => {
      setSecret(created.secret ?? undefined);
      await queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all() });
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const token = String(form.get("ntfy_token") ?? "").trim();
    const description = String(form.get("description") ?? "").trim();
    setSecret(undefined);
    create.mutate({
      kind,
      url: String(form.get("url") ?? "").trim(),
      events: form.getAll("events").map(String),
      ...(description ? { description } : {}),
      ...(kind === "ntfy" && token ? { ntfy_token: token } : {}),
    });
  }

  return (
    <div className="space-y-4">
      <form onSubmit={submit} className="space-y-4" aria-label="Add a notification endpoint">
        <fieldset className="flex flex-wrap gap-4 text-sm">
          <legend className="mb-1 font-medium">Kind</legend>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="kind"
              checked={kind === "webhook"}
              onChange={() => setKind("webhook")}
            />
            Webhook (signed JSON to your server)
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="kind" checked={kind === "ntfy"} onChange={() => setKind("ntfy")} />
            Push topic (ntfy)
          </label>
        </fieldset>
        <label htmlFor="endpoint-url" className="block text-sm font-medium">
          {kind === "webhook" ? "Webhook URL" : "ntfy topic URL"}
          <input
            id="endpoint-url"
            name="url"
            required
            maxLength={2048}
            placeholder={
              kind === "webhook" ? "https://hooks.example.com/vps" : "https://ntfy.sh/my-secret-topic"
            }
            className={INPUT_STYLE}
          />
          <span className={`mt-1 block font-normal ${TEXT_STYLES.muted}`}>
            {kind === "webhook"
              ? "https, on a public address. Every request is signed (Standard Webhooks); the secret is shown once."
              : "A topic on ntfy.sh or your own ntfy server; subscribe to it in the ntfy app. Anyone who knows a public topic's name can read it: pick a long one."}
          </span>
        </label>
        {kind === "ntfy" && (
          <label htmlFor="endpoint-token" className="block text-sm font-medium">
            Access token (optional, for a protected topic)
            <input
              id="endpoint-token"
              name="ntfy_token"
              maxLength={200}
              className={INPUT_STYLE}
              autoComplete="off"
            />
          </label>
        )}
        <label htmlFor="endpoint-description" className="block text-sm font-medium">
          Description (optional)
          <input id="endpoint-description" name="description" maxLength={200} className={INPUT_STYLE} />
        </label>
        <fieldset className="space-y-1 text-sm">
          <legend className="mb-1 font-medium">Events</legend>
          <div className="grid gap-1 sm:grid-cols-2">
            {EVENT_TYPES.map((type) => (
              <label key={type} className="flex items-start gap-2">
                <input type="checkbox" name="events" value={type} defaultChecked className="mt-1" />
                <span>
                  <code className="text-xs">{type}</code>
                  <span className={`block text-xs ${TEXT_STYLES.muted}`}>{EVENT_DESCRIPTIONS[type]}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {kind === "webhook" ? "Add webhook" : "Add push topic"}
        </Button>
        {create.error && <Alert>{errorMessage(create.error)}</Alert>}
      </form>
      {secret && (
        <div
          role="alert"
          className="space-y-2 rounded border border-amber-400 bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          <p>
            The webhook's signing secret. It cannot be shown again: keep it where your receiver verifies
            signatures.
          </p>
          <code data-testid="webhook-secret" className="block break-all">
            {secret}
          </code>
          <CopyButton value={secret} label="Copy secret" />
        </div>
      )}
    </div>
  );
}
