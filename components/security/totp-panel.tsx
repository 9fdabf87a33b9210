"use client";

import { type FormEvent, useState } from "react";

type Setup = { secret: string; otpauth_uri: string; qr_data_uri: string };

/** Two-factor sign-in: scan or type the secret, confirm with a code; turning it off also takes a code. */
export function TotpPanel({ enabled: initiallyEnabled }: { enabled: boolean }) {
  const [enabled, setEnabled] = useState(initiallyEnabled);
  const [setup, setSetup] = useState<Setup>();
  const [message, setMessage] = useState("");

  async function start() {
    const response = await fetch("/bff/totp", { method: "POST" });
    const body = (await response.json()) as Setup & { message?: string };
    if (response.ok) setSetup(body);
    else setMessage(body.message ?? "Could not start the setup.");
  }

  async function submitCode(event: FormEvent<HTMLFormElement>, action: "confirm" | "disable") {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get("code") ?? "");
    const response = await fetch(`/bff/totp/${action}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    const body = (await response.json()) as { totp_enabled?: boolean; message?: string };
    if (response.ok && typeof body.totp_enabled === "boolean") {
      setEnabled(body.totp_enabled);
      setSetup(undefined);
      setMessage(body.totp_enabled ? "Two-factor sign-in is on." : "Two-factor sign-in is off.");
    } else setMessage(body.message ?? "That code did not work.");
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
        <button
          type="button"
          onClick={start}
          className="rounded bg-zinc-900 px-4 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900"
        >
          Turn on two-factor sign-in
        </button>
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
            <button
              type="submit"
              className="rounded bg-zinc-900 px-4 py-2 text-white dark:bg-zinc-100 dark:text-zinc-900"
            >
              Confirm
            </button>
          </form>
        </div>
      )}
      {enabled && (
        <form onSubmit={(event) => submitCode(event, "disable")} className="flex flex-wrap items-end gap-3">
          {codeField}
          <button type="submit" className="rounded border border-zinc-300 px-4 py-2 dark:border-zinc-700">
            Turn off
          </button>
        </form>
      )}
      {message && <p role="status">{message}</p>}
    </div>
  );
}
