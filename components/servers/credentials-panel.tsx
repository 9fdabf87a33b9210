"use client";

import { useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { errorMessage } from "@/lib/queries/bff-fetch";
import { fetchCredentials } from "@/lib/queries/servers";

/**
 * Root credentials, masked until the user asks. The password is read from the API only on reveal, held in
 * this component's state alone (never the query cache), and dropped again on hide or when the page goes.
 */
export function CredentialsPanel({ serverId }: { serverId: number }) {
  const [password, setPassword] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState("");

  async function reveal() {
    setLoading(true);
    setError("");
    try {
      setPassword((await fetchCredentials(serverId)).password);
    } catch (failure) {
      setError(errorMessage(failure));
    }
    setLoading(false);
  }

  return (
    <section aria-labelledby="credentials-heading" className="space-y-3">
      <h2 id="credentials-heading" className="text-lg font-semibold">
        Root login
      </h2>
      <dl className="grid grid-cols-[8rem_1fr] gap-y-2 text-sm">
        <dt>User</dt>
        <dd className="font-mono">root</dd>
        <dt>Password</dt>
        <dd className="break-all font-mono" data-testid="root-password">
          {password ?? "••••••••••••"}
        </dd>
      </dl>
      <div className="flex flex-wrap gap-2">
        {password ? (
          <>
            <CopyButton value={password} label="Copy password" />
            <button
              type="button"
              onClick={() => setPassword(undefined)}
              className="rounded border border-zinc-300 px-3 py-1.5 dark:border-zinc-700"
            >
              Hide password
            </button>
          </>
        ) : (
          <button
            type="button"
            onClick={reveal}
            disabled={loading}
            className="rounded border border-zinc-300 px-3 py-1.5 disabled:opacity-60 dark:border-zinc-700"
          >
            {loading ? "Revealing…" : "Reveal password"}
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </section>
  );
}
