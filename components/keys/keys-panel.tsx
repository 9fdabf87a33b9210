"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { KeyForm, type NewKeyRequest } from "@/components/keys/key-form";
import { Alert } from "@/components/ui/alert";
import { useHydrated } from "@/components/ui/use-hydrated";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { keysQuery } from "@/lib/dashboard/queries/keys";
import type { Schemas } from "@/lib/dashboard/queries/types";

type ApiKey = Schemas["ApiKey"];

/** "$12.50 of $50.00 a month", or a dash for a key without a cap of its own. */
function capText(cap: ApiKey["spend_cap"]): string {
  if (!cap) return "—";
  const usd = (amount: number) => `$${amount.toFixed(2)}`;
  const period = cap.period === "total" ? "in total" : `a ${cap.period}`;
  return `${usd(cap.spent_usd)} of ${usd(cap.amount_usd)} ${period}`;
}

/** The expiry's day, "expired" once past, or "never". */
function expiryText(expiresAt: string | null): string {
  if (!expiresAt) return "never";
  return Date.parse(expiresAt) <= Date.now() ? `expired ${expiresAt.slice(0, 10)}` : expiresAt.slice(0, 10);
}

/**
 * API keys: listed by prefix with what each may do, its cap and expiry; created (shown once); revoked.
 * Sessions of the dashboard are not listed. With two-factor sign-in on, creating a key here takes a code: the
 * dashboard's session alone mints none.
 */
export function KeysPanel({ totpEnabled }: { totpEnabled: boolean }) {
  const hydrated = useHydrated();
  const queryClient = useQueryClient();
  const { data, error: loadError } = useQuery(keysQuery());
  const keys = data?.keys;
  // The new key lives in this component only: the list query never holds a full key.
  const [created, setCreated] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: keysQuery().queryKey });

  const [needsCode, setNeedsCode] = useState(totpEnabled);
  const createKey = useMutation({
    mutationFn: (body: NewKeyRequest) =>
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

  const failure = createKey.error ?? revokeKey.error ?? loadError;
  const error = failure ? errorMessage(failure) : "";
  const revoke = (key: ApiKey) => revokeKey.mutate(key);

  return (
    <div className="space-y-6">
      <KeyForm
        needsCode={needsCode}
        pending={createKey.isPending}
        onSubmit={(body) => createKey.mutate(body)}
      />
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
              <th>Scopes</th>
              <th className="hidden sm:table-cell">Spend cap</th>
              <th className="hidden sm:table-cell">Expires</th>
              <th>Last used</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} className="border-t border-zinc-200 align-top dark:border-zinc-800">
                {/* The prefix under the name, and on a phone the cap and expiry too: the table fits its screen. */}
                <td className="py-2">
                  {key.name ?? "—"}
                  <code className="block text-xs">{key.prefix}…</code>
                  <span className="block text-xs sm:hidden">
                    {key.spend_cap ? `cap ${capText(key.spend_cap)}` : "no spend cap"}, expires{" "}
                    {expiryText(key.expires_at)}
                  </span>
                </td>
                <td className="max-w-xs font-mono text-xs">
                  {key.full_access ? "every scope" : key.scopes.join(" ")}
                  {key.server_ids && <span className="block">servers {key.server_ids.join(", ")}</span>}
                  {key.allowed_networks && (
                    <span className="block">from {key.allowed_networks.join(" ")}</span>
                  )}
                </td>
                <td className="hidden sm:table-cell">{capText(key.spend_cap)}</td>
                <td className="hidden sm:table-cell">{expiryText(key.expires_at)}</td>
                <td>
                  {key.last_used_at?.slice(0, 16).replace("T", " ") ?? "never"}
                  {key.last_used_from && <span className="block text-xs">{key.last_used_from}</span>}
                </td>
                <td className="text-right">
                  <button
                    type="button"
                    className="underline"
                    disabled={!hydrated}
                    onClick={() => revoke(key)}
                  >
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
