"use client";

import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { Alert } from "../ui/alert";
import { ShortfallTopupLink } from "./shortfall-topup-link";
import type { ServerActions } from "./use-server-change";

/** What the last change of a section said: its notice, or why it was refused (with the top-up a shortfall needs). */
export function ActionNotice({ actions }: { actions: ServerActions }) {
  return (
    <p aria-live="polite" className="text-sm">
      {actions.notice && <span data-testid="server-notice">{actions.notice}</span>}
      {actions.error && (
        <Alert as="span">
          {errorMessage(actions.error)}{" "}
          {actions.deficitCents > 0 && (
            <ShortfallTopupLink deficitCents={actions.deficitCents} className="underline" />
          )}
        </Alert>
      )}
    </p>
  );
}
