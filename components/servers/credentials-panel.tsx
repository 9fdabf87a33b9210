"use client";

import { useState } from "react";
import { errorMessage } from "@/lib/queries/bff-fetch";
import { fetchCredentials } from "@/lib/queries/servers";

/**
 * Root credentials, masked until the user asks. The password is read from the API only on reveal, held in
 * this component's state alone (never the query cache), and dropped again on hide or when the page goes.
 */
export function CredentialsPanel({ serverId }: { serverId: number }) {
  const [password, setPassword] = useState<string>();
  const [state, setState] = useState<"idle" | "loading" | "copied">("idle");
  const [error, setError] = useState("");

  async function reveal() {
    setState("loading");
    setError("");
    try {
      setPassword((await fetchCredentials(serverId)).password);
    } catch (failure) {
      setError(errorMessage(failure));
    }
    setState("idle");
  }

  async function copy() {
    if (!password) return;
    try {
      await navigator.clipboard.writeText(password);
      setState("copied");
    } catch {
      setError("The browser refused the clipboard; select the password and copy it by hand.");
    }
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
            <button
              type="button"
              onClick={copy}
              className="rounded border border-zinc-300 px-3 py-1.5 dark:border-zinc-700"
            >
              {state === "copied" ? "Copied" : "Copy password"}
            </button>
            <button
              type="button"
              onClick={() => {
                setPassword(undefined);
                setState("idle");
              }}
              className="rounded border border-zinc-300 px-3 py-1.5 dark:border-zinc-700"
            >
              Hide password
            </button>
          </>
        ) : (
          <button
            type="button"
            onClick={reveal}
            disabled={state === "loading"}
            className="rounded border border-zinc-300 px-3 py-1.5 disabled:opacity-60 dark:border-zinc-700"
          >
            {state === "loading" ? "Revealing…" : "Reveal password"}
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
