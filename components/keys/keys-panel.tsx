"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { SecondFactorField, secondFactorOf } from "@/components/security/second-factor-field";
import { Alert } from "@/components/ui/alert";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { keysQuery } from "@/lib/dashboard/queries/keys";
import type { Schemas } from "@/lib/dashboard/queries/types";

type ApiKey = Schemas["ApiKey"];

/**
 * API keys: listed by prefix, created (shown once), revoked. Sessions of the dashboard are not listed. With
 * two-factor sign-in on, creating a key here takes a code: the dashboard's session alone mints none.
 */
export function KeysPanel({ totpEnabled }: { totpEnabled: boolean }) {
  const queryClient = useQueryClient();
  const { data, error: loadError } = useQuery(keysQuery());
  const keys = data?.keys;
  // The new key lives in this component only: the list query never holds a full key.
  const [created, setCreated] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: keysQuery().queryKey });

  const [needsCode, setNeedsCode] = useState(totpEnabled);
  const createKey = useMutation({
    mutationFn: (body: { name?: string; totp_code?: string; recovery_code?: string }) =>
      bffFetch<Schemas["ApiKeyCreated"]>("/bff/keys", { method: "POST", body }),
    // Not kept in the mutation cache either: once shown here, the key is gone from the page's memory.
    gcTime: 0,
    onSuccess: async (key) => {
      setCreated(key.api_key);
      createKey.reset();
      await refresh();
    },
    onError: (error) => {
      if (error instanceof BffError && error.code === "totp_required") setNeedsCode(true);
    },
  });
  const revokeKey = useMutation({
    mutationFn: (key: ApiKey) => bffFetch(`/bff/keys/${key.id}`, { method: "DELETE" }),
    onSettled: refresh,
  });

  function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    createKey.mutate({ ...(name ? { name } : {}), ...(needsCode ? secondFactorOf(form) : {}) });
  }

  const failure = createKey.error ?? revokeKey.error ?? loadError;
  const error = failure ? errorMessage(failure) : "";
  const revoke = (key: ApiKey) => revokeKey.mutate(key);

  return (
    <div className="space-y-6">
      <form onSubmit={create} className="flex flex-wrap items-end gap-3">
        <div className="space-y-1">
          <label htmlFor="key-name" className="block text-sm font-medium">
            Name (optional)
          </label>
          <input
            id="key-name"
            name="name"
            maxLength={64}
            className="rounded border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </div>
        {needsCode && <SecondFactorField id="key-code" />}
        <button
          type="submit"
          disabled={createKey.isPending}
          className="rounded bg-zinc-900 px-4 py-2 text-white disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900"
        >
          Create key
        </button>
      </form>
      {created && (
        <div className="rounded border border-amber-400 bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          <p>Copy this key now: it cannot be shown again.</p>
          <code data-testid="new-key" className="break-all">
            {created}
          </code>
        </div>
      )}
      {error && <Alert>{error}</Alert>}
      {keys === undefined ? (
        !loadError && <p role="status">Loading keys…</p>
      ) : keys.length === 0 ? (
        <p>No API keys. Create one for scripts and the command line.</p>
      ) : (
        <table className="w-full text-left text-sm" aria-label="API keys">
          <thead>
            <tr>
              <th className="py-2">Name</th>
              <th>Prefix</th>
              <th>Created</th>
              <th>Last used</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} className="border-t border-zinc-200 dark:border-zinc-800">
                <td className="py-2">{key.name ?? "—"}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{key.created_at.slice(0, 10)}</td>
                <td>{key.last_used_at?.slice(0, 16).replace("T", " ") ?? "never"}</td>
                <td className="text-right">
                  <button type="button" className="underline" onClick={() => revoke(key)}>
                    Revoke <span className="sr-only">{key.prefix}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
