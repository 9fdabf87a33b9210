"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState, useTransition } from "react";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { INPUT_STYLE } from "../ui/field";

/** The operator's sign-in: the secret `operator:add` printed and a code from the authenticator app. */
export function OperatorSignInForm() {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(null);
    startTransition(async () => {
      const response = await fetch("/api/operator/v1/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          secret: String(form.get("secret") ?? ""),
          code: String(form.get("code") ?? ""),
        }),
      });
      if (response.ok) {
        router.refresh();
        return;
      }
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      setError(body.message ?? "Signing in failed.");
    });
  }

  return (
    <form onSubmit={submit} className="max-w-md space-y-4" aria-label="Operator sign-in">
      <label htmlFor="secret" className="block text-sm font-medium">
        Sign-in secret
        <input
          id="secret"
          name="secret"
          type="password"
          required
          autoComplete="off"
          placeholder="op-XXXX-XXXX-…"
          className={`${INPUT_STYLE} font-mono`}
        />
      </label>
      <label htmlFor="code" className="block text-sm font-medium">
        Code from the authenticator app
        <input
          id="code"
          name="code"
          required
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="\d{6}"
          maxLength={6}
          className={`${INPUT_STYLE} font-mono`}
        />
      </label>
      <Button type="submit" variant="primary" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </Button>
      {error && <Alert>{error}</Alert>}
    </form>
  );
}
