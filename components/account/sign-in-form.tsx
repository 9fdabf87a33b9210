"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";

/** Sign-in with the login token; asks for a TOTP code when the account has two-factor sign-in on. */
export function SignInForm() {
  const router = useRouter();
  const [needsCode, setNeedsCode] = useState(false);
  const [working, setWorking] = useState(false);
  const [message, setMessage] = useState("");

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setWorking(true);
    setMessage("");
    const response = await fetch("/bff/sign-in", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        login_token: String(form.get("login_token") ?? ""),
        totp_code: needsCode ? String(form.get("totp_code") ?? "") : undefined,
      }),
    });
    const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
    setWorking(false);
    if (response.ok) {
      router.push("/dashboard");
      router.refresh();
      return;
    }
    if (body.error === "totp_required") setNeedsCode(true);
    setMessage(body.message ?? "Sign-in failed; try again.");
  }

  return (
    <form onSubmit={submit} className="max-w-sm space-y-4">
      <div className="space-y-1">
        <label htmlFor="login_token" className="block text-sm font-medium">
          Login token
        </label>
        <input
          id="login_token"
          name="login_token"
          required
          autoComplete="off"
          placeholder="XXXX-XXXX-XXXX-XXXX"
          className="w-full rounded border border-zinc-300 px-3 py-2 font-mono dark:border-zinc-700 dark:bg-zinc-900"
        />
      </div>
      {needsCode && (
        <div className="space-y-1">
          <label htmlFor="totp_code" className="block text-sm font-medium">
            Code from your authenticator app
          </label>
          <input
            id="totp_code"
            name="totp_code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="\d{6}"
            required
            className="w-full rounded border border-zinc-300 px-3 py-2 font-mono dark:border-zinc-700 dark:bg-zinc-900"
          />
        </div>
      )}
      <button
        type="submit"
        disabled={working}
        className="rounded bg-zinc-900 px-4 py-2 text-white disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900"
      >
        {working ? "Signing in…" : "Sign in"}
      </button>
      {message && (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {message}
        </p>
      )}
    </form>
  );
}
