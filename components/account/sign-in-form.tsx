"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { useAction } from "@/lib/dashboard/use-action";
import { SecondFactorField, secondFactorOf } from "../security/second-factor-field";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";

const TOKEN_INPUT =
  "w-full rounded border border-zinc-300 px-3 py-2 font-mono dark:border-zinc-700 dark:bg-zinc-900";

/**
 * Sign-in with the login token; asks for a TOTP code (or a recovery code) when the account has two-factor
 * sign-in on.
 */
export function SignInForm() {
  const router = useRouter();
  const [needsCode, setNeedsCode] = useState(false);
  const signIn = useAction(
    (body: { login_token: string; totp_code?: string; recovery_code?: string }) =>
      bffFetch("/bff/sign-in", { method: "POST", body }),
    {
      success: () => {
        router.push("/dashboard");
        router.refresh();
      },
      failure: (error) => {
        if (error instanceof BffError && error.code === "totp_required") setNeedsCode(true);
      },
    },
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    signIn.start({
      login_token: String(form.get("login_token") ?? ""),
      ...(needsCode ? secondFactorOf(form) : {}),
    });
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
          className={TOKEN_INPUT}
        />
      </div>
      {needsCode && <SecondFactorField id="second_factor" />}
      <Button type="submit" variant="primary" disabled={signIn.isPending}>
        {signIn.isPending ? "Signing in…" : "Sign in"}
      </Button>
      {signIn.error ? <Alert>{errorMessage(signIn.error)}</Alert> : null}
    </form>
  );
}
