"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { SecondFactorField, secondFactorOf } from "./second-factor-field";

type Rotated = { login_token: string; sessions_revoked: number; api_keys_revoked: number };

/**
 * Replaces a leaked login token: the new one is shown once, here only; the old one and every other session
 * stop working at once, and the API keys too when the box is ticked. With two-factor sign-in on it takes a
 * current code or a recovery code.
 */
export function LoginTokenPanel({ totpEnabled }: { totpEnabled: boolean }) {
  const queryClient = useQueryClient();
  const [needsCode, setNeedsCode] = useState(totpEnabled);
  // The new token lives in this component only, never in a query cache.
  const [rotated, setRotated] = useState<Rotated>();
  const rotate = useMutation({
    mutationFn: (body: ReturnType<typeof secondFactorOf> & { revoke_api_keys: boolean }) =>
      bffFetch<Rotated>("/bff/account/login-token", { method: "POST", body }),
    gcTime: 0,
    onSuccess: async (result) => {
      setRotated(result);
      rotate.reset();
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.sessions() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys() }),
      ]);
    },
    onError: (error) => {
      if (error instanceof BffError && error.code === "totp_required") setNeedsCode(true);
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setRotated(undefined);
    rotate.mutate({
      ...(needsCode ? secondFactorOf(form) : {}),
      revoke_api_keys: form.get("revoke_api_keys") === "on",
    });
  }

  return (
    <div className="space-y-3">
      <p>
        If your login token may have leaked, replace it. The old token stops working at once and every other
        dashboard session is signed out. API keys are kept unless you tick the box: whoever signed in with the
        token could have made keys of their own, but your scripts use keys too.
      </p>
      <form onSubmit={submit} className="space-y-3">
        {needsCode && <SecondFactorField id="rotate-code" />}
        <label className="flex items-center gap-2">
          <input type="checkbox" name="revoke_api_keys" />
          Also revoke every API key (scripts using them stop working)
        </label>
        <Button type="submit" variant="primary" disabled={rotate.isPending}>
          Replace login token
        </Button>
      </form>
      {rotate.error && <Alert>{errorMessage(rotate.error)}</Alert>}
      {rotated && (
        <div className="space-y-2 rounded border border-amber-400 bg-amber-50 p-3 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          <p>
            Your new login token. Copy it now: it cannot be shown again.{" "}
            {rotated.sessions_revoked > 1
              ? `${rotated.sessions_revoked - 1} other session(s) were signed out.`
              : "No other session was signed in."}
            {rotated.api_keys_revoked > 0 && ` ${rotated.api_keys_revoked} API key(s) were revoked.`}
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
