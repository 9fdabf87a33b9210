"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { CopyButton } from "@/components/ui/copy-button";
import { BffError, bffFetch, errorMessage } from "@/lib/queries/bff-fetch";
import { sessionsQuery } from "@/lib/queries/sessions";

type Rotated = { login_token: string; sessions_revoked: number };

/**
 * Replaces a leaked login token: the new one is shown once, here only; the old one and every other session
 * stop working at once. With two-factor sign-in on it takes a current code.
 */
export function LoginTokenPanel({ totpEnabled }: { totpEnabled: boolean }) {
  const queryClient = useQueryClient();
  const [needsCode, setNeedsCode] = useState(totpEnabled);
  // The new token lives in this component only, never in a query cache.
  const [rotated, setRotated] = useState<Rotated>();
  const rotate = useMutation({
    mutationFn: (code: string | undefined) =>
      bffFetch<Rotated>("/bff/account/login-token", {
        method: "POST",
        body: code ? { totp_code: code } : {},
      }),
    gcTime: 0,
    onSuccess: async (result) => {
      setRotated(result);
      rotate.reset();
      await queryClient.invalidateQueries({ queryKey: sessionsQuery().queryKey });
    },
    onError: (error) => {
      if (error instanceof BffError && error.code === "totp_required") setNeedsCode(true);
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get("code") ?? "").trim();
    setRotated(undefined);
    rotate.mutate(needsCode ? code : undefined);
  }

  return (
    <div className="space-y-3">
      <p>
        If your login token may have leaked, replace it. The old token stops working at once and every other
        dashboard session is signed out; API keys are not affected.
      </p>
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        {needsCode && (
          <div className="space-y-1">
            <label htmlFor="rotate-code" className="block text-sm font-medium">
              Code from your authenticator app
            </label>
            <input
              id="rotate-code"
              name="code"
              inputMode="numeric"
              pattern="\d{6}"
              required
              autoComplete="one-time-code"
              className="rounded border border-zinc-300 px-3 py-2 font-mono dark:border-zinc-700 dark:bg-zinc-900"
            />
          </div>
        )}
        <button
          type="submit"
          disabled={rotate.isPending}
          className="rounded bg-zinc-900 px-4 py-2 text-white disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900"
        >
          Replace login token
        </button>
      </form>
      {rotate.error && <Alert>{errorMessage(rotate.error)}</Alert>}
      {rotated && (
        <div className="space-y-2 rounded border border-amber-400 bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          <p>
            Your new login token. Copy it now: it cannot be shown again.{" "}
            {rotated.sessions_revoked > 1
              ? `${rotated.sessions_revoked - 1} other session(s) were signed out.`
              : "No other session was signed in."}
          </p>
          <div className="flex flex-wrap items-center gap-2">
            <code data-testid="new-login-token" className="break-all font-mono text-lg">
              {rotated.login_token}
            </code>
            <CopyButton value={rotated.login_token} label="Copy login token" />
          </div>
        </div>
      )}
    </div>
  );
}
