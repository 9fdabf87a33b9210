"use client";

import { type FormEvent, useId } from "react";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { INPUT_STYLE } from "../ui/field";
import { useOperatorAction } from "./use-operator-action";

/**
 * An operator action that needs a reason: suspend or lift, drain or take back, mark reviewed, deactivate an
 * operator, decide an adjustment waiting for approval, open or block a server's mail. With `pauseChoice`
 * (suspensions) it also asks whether the paid period keeps running.
 */
export function ReasonForm(props: {
  csrfToken: string;
  method: "POST" | "PUT" | "DELETE";
  path: string;
  /** The body's field the text goes in. */
  field?: "reason" | "note";
  label: string;
  submit: string;
  success: string;
  danger?: boolean;
  pauseChoice?: boolean;
  /** Fixed fields sent with the text (an approval's decision, the mail switch's position). */
  extra?: Record<string, unknown>;
}) {
  const id = useId();
  const action = useOperatorAction(props.csrfToken);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const body: Record<string, unknown> = {
      ...props.extra,
      [props.field ?? "reason"]: String(form.get("text") ?? ""),
    };
    if (props.pauseChoice) body.pause_period = form.get("keep_running") !== "on";
    action.run({ method: props.method, path: props.path, body }, props.success, () => element.reset());
  }
  return (
    <form onSubmit={submit} className="space-y-2">
      <label htmlFor={`${id}-text`} className="block text-sm font-medium">
        {props.label}
        <textarea
          id={`${id}-text`}
          name="text"
          required
          minLength={3}
          maxLength={500}
          rows={2}
          className={INPUT_STYLE}
        />
      </label>
      {props.pauseChoice && (
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="keep_running" />
          Keep the paid period running while suspended (by default it waits)
        </label>
      )}
      <Button type="submit" variant={props.danger ? "danger" : "secondary"} disabled={action.pending}>
        {action.pending ? "Working…" : props.submit}
      </Button>
      <p aria-live="polite" className="text-sm">
        {action.done && <span role="status">{action.done}</span>}
        {action.error && <Alert as="span">{action.error}</Alert>}
      </p>
    </form>
  );
}
