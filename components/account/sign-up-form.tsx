"use client";

import { useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { useAction } from "@/lib/dashboard/use-action";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";

type Credentials = { api_key: string; login_token: string };

/** One click creates the account; its two credentials are shown here once, with copy and download. */
export function SignUpForm() {
  // The credentials live in this component only, never in a query or mutation cache.
  const [credentials, setCredentials] = useState<Credentials>();
  const create = useAction(() => bffFetch<Credentials>("/bff/sign-up", { method: "POST" }), {
    success: (created) => setCredentials({ api_key: created.api_key, login_token: created.login_token }),
  });

  if (credentials) {
    const download = `data:text/plain;charset=utf-8,${encodeURIComponent(
      `API key: ${credentials.api_key}\nLogin token: ${credentials.login_token}\n`,
    )}`;
    return (
      <div className="space-y-4">
        <p
          role="alert"
          className="rounded border border-amber-400 bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          Save these now: they cannot be shown again. The login token signs you in here; the API key is for
          scripts and the command line.
        </p>
        <dl className="space-y-3">
          <div>
            <dt className="text-sm font-medium">Login token</dt>
            <dd className="flex flex-wrap items-center gap-2">
              <code data-testid="login-token" className="rounded bg-zinc-100 px-2 py-1 dark:bg-zinc-900">
                {credentials.login_token}
              </code>
              <CopyButton value={credentials.login_token} label="Copy login token" />
            </dd>
          </div>
          <div>
            <dt className="text-sm font-medium">API key</dt>
            <dd className="flex flex-wrap items-center gap-2">
              <code
                data-testid="api-key"
                className="break-all rounded bg-zinc-100 px-2 py-1 dark:bg-zinc-900"
              >
                {credentials.api_key}
              </code>
              <CopyButton value={credentials.api_key} label="Copy API key" />
            </dd>
          </div>
        </dl>
        <div className="flex flex-wrap gap-3">
          <a
            href={download}
            download="prepaid-vps-credentials.txt"
            className="rounded border px-3 py-2 text-sm"
          >
            Download both
          </a>
          <a
            href="/dashboard"
            className="rounded bg-zinc-900 px-3 py-2 text-sm text-white dark:bg-zinc-100 dark:text-zinc-900"
          >
            I saved them: continue to the dashboard
          </a>
        </div>
      </div>
    );
  }

  return (
    <div className="space-y-3">
      <p>No e-mail, no name: one click creates an account with a USD balance you fund with crypto.</p>
      <Button variant="primary" onClick={() => create.start(undefined)} disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create account"}
      </Button>
      {create.error ? <Alert>{errorMessage(create.error)}</Alert> : null}
    </div>
  );
}
