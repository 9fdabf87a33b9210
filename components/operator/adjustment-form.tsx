"use client";

import { type FormEvent, useId, useRef } from "react";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { INPUT_STYLE } from "../ui/field";
import { useOperatorAction } from "./use-operator-action";

/**
 * A ledger adjustment: credit or debit, the amount, the reason, and the flagged payment it settles if any.
 * One idempotency key per filled form, so a double click or a retry posts it once.
 */
export function AdjustmentForm(props: { csrfToken: string; accountId: number; payments: string[] }) {
  const id = useId();
  const key = useRef(crypto.randomUUID());
  const action = useOperatorAction(props.csrfToken);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const amount = Number(form.get("amount"));
    const signed = form.get("direction") === "debit" ? -amount : amount;
    const payment = String(form.get("payment") ?? "");
    action.run(
      {
        method: "POST",
        path: `/accounts/${props.accountId}/adjustments`,
        body: {
          amount_usd: signed,
          reason: String(form.get("reason") ?? ""),
          ...(payment ? { payment } : {}),
        },
        headers: { "idempotency-key": key.current },
      },
      // Past the operator's daily cap nothing is posted: it waits for another admin.
      (answer) =>
        (answer as { state?: string }).state === "pending"
          ? "Past your daily cap: it waits for another admin's approval (Operators)."
          : "Posted to the ledger.",
      () => {
        element.reset();
        key.current = crypto.randomUUID();
      },
    );
  }
  return (
    <form onSubmit={submit} className="space-y-2" aria-label="Ledger adjustment">
      <fieldset className="flex gap-4 text-sm">
        <legend className="sr-only">Direction</legend>
        <label className="flex items-center gap-1">
          <input type="radio" name="direction" value="credit" defaultChecked /> Credit
        </label>
        <label className="flex items-center gap-1">
          <input type="radio" name="direction" value="debit" /> Debit
        </label>
      </fieldset>
      <label htmlFor={`${id}-amount`} className="block text-sm font-medium">
        Amount in USD
        <input
          id={`${id}-amount`}
          name="amount"
          type="number"
          min="0.01"
          max="10000"
          step="0.01"
          required
          className={INPUT_STYLE}
        />
      </label>
      <label htmlFor={`${id}-reason`} className="block text-sm font-medium">
        Reason (kept with the ledger row and in the audit log)
        <textarea
          id={`${id}-reason`}
          name="reason"
          required
          minLength={3}
          maxLength={500}
          rows={2}
          className={INPUT_STYLE}
        />
      </label>
      {props.payments.length > 0 && (
        <label htmlFor={`${id}-payment`} className="block text-sm font-medium">
          Settles the flagged payment
          <select id={`${id}-payment`} name="payment" className={INPUT_STYLE} defaultValue="">
            <option value="">none</option>
            {props.payments.map((payment) => (
              <option key={payment} value={payment}>
                {payment}
              </option>
            ))}
          </select>
        </label>
      )}
      <Button type="submit" variant="primary" disabled={action.pending}>
        {action.pending ? "Posting…" : "Post adjustment"}
      </Button>
      <p aria-live="polite" className="text-sm">
        {action.done && <span role="status">{action.done}</span>}
        {action.error && <Alert as="span">{action.error}</Alert>}
      </p>
    </form>
  );
}
