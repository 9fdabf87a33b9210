"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { recoveryCodesQuery } from "@/lib/dashboard/queries/sessions";
import type { Schemas } from "@/lib/dashboard/queries/types";
import { SecondFactorField, secondFactorOf } from "./second-factor-field";

/**
 * The "save these" step: freshly made recovery codes, shown this once, until the user says they are kept.
 * The codes live in the parent's state only, never in a query cache.
 */
export function RecoveryCodesNotice({ codes, onSaved }: { codes: string[]; onSaved: () => void }) {
  const [saved, setSaved] = useState(false);
  return (
    <section
      aria-labelledby="recovery-codes-title"
      className="space-y-3 rounded border border-amber-400 bg-amber-50 p-4 text-amber-900 dark:bg-amber-950 dark:text-amber-100"
    >
      <h3 id="recovery-codes-title" className="font-semibold">
        Save your recovery codes
      </h3>
      <p>
        Each code signs you in once in place of a code from your app: when your phone is lost, or when codes
        are refused after too many wrong tries. They are shown only now. Keep them somewhere safe, apart from
        your phone.
      </p>
      <ol className="grid max-w-md grid-cols-2 gap-x-6 gap-y-1 font-mono text-lg">
        {codes.map((code) => (
          <li key={code} data-testid="recovery-code">
            {code}
          </li>
        ))}
      </ol>
      <CopyButton value={codes.join("\n")} label="Copy recovery codes" />
      <div className="flex flex-wrap items-center gap-4">
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={saved} onChange={(event) => setSaved(event.target.checked)} />I have
          saved these codes
        </label>
        <Button variant="primary" disabled={!saved} onClick={onSaved}>
          Done
        </Button>
      </div>
    </section>
  );
}

/** How many recovery codes are left, and a new set in exchange for a second factor (the old set then dies). */
export function RecoveryCodesStatus({ onNewCodes }: { onNewCodes: (codes: string[]) => void }) {
  const { data, error } = useQuery(recoveryCodesQuery());
  const renew = useMutation({
    mutationFn: (factor: ReturnType<typeof secondFactorOf>) =>
      bffFetch<Schemas["RecoveryCodes"]>("/bff/recovery-codes", { method: "POST", body: factor }),
    gcTime: 0,
    onSuccess: (result) => {
      renew.reset();
      onNewCodes(result.recovery_codes);
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    renew.mutate(secondFactorOf(new FormData(event.currentTarget)));
  }

  const remaining = data?.remaining;
  return (
    <div className="space-y-3">
      {remaining !== undefined && (
        <p>
          {remaining === 1 ? "1 recovery code left." : `${remaining} recovery codes left.`}
          {remaining <= 3 && " Make new ones before you run out."}
        </p>
      )}
      {error && <Alert>{errorMessage(error)}</Alert>}
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        <SecondFactorField id="renew-recovery-code" />
        <Button type="submit" disabled={renew.isPending}>
          Make new recovery codes
        </Button>
      </form>
      {renew.error && <Alert>{errorMessage(renew.error)}</Alert>}
    </div>
  );
}
