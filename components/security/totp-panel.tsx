"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import type { Schemas } from "@/lib/dashboard/queries/types";
import { Button } from "../ui/button";
import { RecoveryCodesNotice, RecoveryCodesStatus } from "./recovery-codes";
import { SecondFactorField, secondFactorOf } from "./second-factor-field";

type Setup = { secret: string; otpauth_uri: string; qr_data_uri: string };

/**
 * Two-factor sign-in: scan or type the secret, confirm with a code, then save the recovery codes; turning it
 * off takes a code or a recovery code.
 */
export function TotpPanel({ enabled: initiallyEnabled }: { enabled: boolean }) {
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(initiallyEnabled);
  const [message, setMessage] = useState("");
  // The secret and the recovery codes live in this component only, never in a query or mutation cache.
  const [setup, setSetup] = useState<Setup>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const refreshRecoveryCodes = () => queryClient.invalidateQueries({ queryKey: queryKeys.recoveryCodes() });

  const start = useMutation({
    mutationFn: () => bffFetch<Setup>("/bff/totp", { method: "POST" }),
    gcTime: 0,
    onSuccess: (started) => setSetup(started),
    onError: (error) => setMessage(errorMessage(error)),
  });
  const confirm = useMutation({
    mutationFn: (code: string) =>
      bffFetch<Schemas["TotpEnabled"]>("/bff/totp/confirm", { method: "POST", body: { code } }),
    gcTime: 0,
    onSuccess: (result) => {
      confirm.reset();
      setEnabled(true);
      setSetup(undefined);
      setRecoveryCodes(result.recovery_codes);
      setMessage("Two-factor sign-in is on.");
    },
    onError: (error) => setMessage(errorMessage(error)),
  });
  const disable = useMutation({
    mutationFn: (factor: ReturnType<typeof secondFactorOf>) =>
      bffFetch<Schemas["TotpState"]>("/bff/totp/disable", {
        method: "POST",
        body: factor.recovery_code ? { recovery_code: factor.recovery_code } : { code: factor.totp_code },
      }),
    onSuccess: async () => {
      setEnabled(false);
      setRecoveryCodes(undefined);
      setMessage("Two-factor sign-in is off.");
      await refreshRecoveryCodes();
    },
    onError: (error) => setMessage(errorMessage(error)),
  });

  function submitConfirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    confirm.mutate(String(new FormData(event.currentTarget).get("code") ?? "").trim());
  }

  function submitDisable(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    disable.mutate(secondFactorOf(new FormData(event.currentTarget)));
  }

  async function recoveryCodesSaved() {
    setRecoveryCodes(undefined);
    await refreshRecoveryCodes();
  }

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
          <form onSubmit={submitConfirm} className="flex flex-wrap items-end gap-3">
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
            <Button type="submit" variant="primary" disabled={confirm.isPending}>
              Confirm
            </Button>
          </form>
        </div>
      )}
      {recoveryCodes && <RecoveryCodesNotice codes={recoveryCodes} onSaved={recoveryCodesSaved} />}
      {enabled && !recoveryCodes && (
        <>
          <RecoveryCodesStatus onNewCodes={setRecoveryCodes} />
          <form onSubmit={submitDisable} className="flex flex-wrap items-end gap-3">
            <SecondFactorField id="disable-totp-code" />
            <Button type="submit" disabled={disable.isPending}>
              Turn off
            </Button>
          </form>
        </>
      )}
      {message && <p role="status">{message}</p>}
    </div>
  );
}
