"use client";

import { useState } from "react";
import { useHydrated } from "../ui/use-hydrated";

const INPUT = "rounded border border-zinc-300 px-3 py-2 font-mono dark:border-zinc-700 dark:bg-zinc-900";

/**
 * Where a second factor is asked for: a code from the authenticator app, or, by a switch, one of the
 * recovery codes (for a lost phone, or while the app's codes are throttled). The input is named after the
 * API field it fills, so `secondFactorOf` reads whichever is shown.
 */
export function SecondFactorField({
  id,
  appLabel = "Code from your authenticator app",
}: {
  id: string;
  appLabel?: string;
}) {
  const [recovery, setRecovery] = useState(false);
  const hydrated = useHydrated();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium">
        {recovery ? "Recovery code" : appLabel}
      </label>
      {recovery ? (
        <input
          key="recovery"
          id={id}
          name="recovery_code"
          required
          autoComplete="off"
          spellCheck={false}
          placeholder="XXXX-XXXX-XXXX"
          className={INPUT}
        />
      ) : (
        <input
          key="app"
          id={id}
          name="totp_code"
          inputMode="numeric"
          pattern="\d{6}"
          required
          autoComplete="one-time-code"
          className={INPUT}
        />
      )}
      <button
        type="button"
        className="block text-sm underline"
        disabled={!hydrated}
        onClick={() => setRecovery(!recovery)}
      >
        {recovery ? "Use a code from your app instead" : "Use a recovery code instead"}
      </button>
    </div>
  );
}

/** The second factor a form's SecondFactorField holds, as the API takes it: `{totp_code}` or `{recovery_code}`. */
export function secondFactorOf(form: FormData): { totp_code?: string; recovery_code?: string } {
  const recovery = form.get("recovery_code");
  if (typeof recovery === "string") return { recovery_code: recovery.trim() };
  const code = form.get("totp_code");
  return typeof code === "string" ? { totp_code: code.trim() } : {};
}
