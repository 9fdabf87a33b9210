"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { bffFetch, errorMessage } from "@/lib/queries/bff-fetch";
import { Button } from "../ui/button";

type Setup = { secret: string; otpauth_uri: string; qr_data_uri: string };

/** Two-factor sign-in: scan or type the secret, confirm with a code; turning it off also takes a code. */
export function TotpPanel({ enabled: initiallyEnabled }: { enabled: boolean }) {
  const [enabled, setEnabled] = useState(initiallyEnabled);
  const [message, setMessage] = useState("");
  // The secret lives in this component only, never in a mutation cache.
  const [setup, setSetup] = useState<Setup>();
  const start = useMutation({
    mutationFn: () => bffFetch<Setup>("/bff/totp", { method: "POST" }),
    gcTime: 0,
    onSuccess: (started) => setSetup(started),
    onError: (error) => setMessage(errorMessage(error)),
  });
  const code = useMutation({
    mutationFn: (input: { action: "confirm" | "disable"; code: string }) =>
      bffFetch<{ totp_enabled: boolean }>(`/bff/totp/${input.action}`, {
        method: "POST",
        body: { code: input.code },
      }),
    onSuccess: (result) => {
      setEnabled(result.totp_enabled);
      setSetup(undefined);
      setMessage(result.totp_enabled ? "Two-factor sign-in is on." : "Two-factor sign-in is off.");
    },
    onError: (error) => setMessage(errorMessage(error)),
  });

  function submitCode(event: FormEvent<HTMLFormElement>, action: "confirm" | "disable") {
    event.preventDefault();
    code.mutate({ action, code: String(new FormData(event.currentTarget).get("code") ?? "") });
  }

  const codeField = (
    <div className="space-y-1">
      <label htmlFor="totp-code" className="block text-sm font-medium">
        6-digit code
      </label>
      <input
        id="totp-code"
        name="code"
        inputMode="numeric"
        pattern="\d{6}"
        required
        autoComplete="one-time-code"
        className="rounded border border-zinc-300 px-3 py-2 font-mono dark:border-zinc-700 dark:bg-zinc-900"
      />
    </div>
  );

  return (
    <div className="space-y-4">
      <p data-testid="totp-state">Two-factor sign-in is {enabled ? "on" : "off"}.</p>
      {!enabled && !setup && (
        <Button variant="primary" onClick={() => start.mutate()} disabled={start.isPending}>
          Turn on two-factor sign-in
        </Button>
      )}
      {setup && (
        <div className="space-y-3">
          {/* biome-ignore lint/performance/noImgElement: a data URI generated on the server, nothing to optimise */}
          <img src={setup.qr_data_uri} alt="QR code for your authenticator app" width={192} height={192} />
          <p>
            Or type this secret: <code data-testid="totp-secret">{setup.secret}</code>
          </p>
          <form onSubmit={(event) => submitCode(event, "confirm")} className="flex flex-wrap items-end gap-3">
            {codeField}
            <Button type="submit" variant="primary" disabled={code.isPending}>
              Confirm
            </Button>
          </form>
        </div>
      )}
      {enabled && (
        <form onSubmit={(event) => submitCode(event, "disable")} className="flex flex-wrap items-end gap-3">
          {codeField}
          <Button type="submit" disabled={code.isPending}>
            Turn off
          </Button>
        </form>
      )}
      {message && <p role="status">{message}</p>}
    </div>
  );
}
