import type { ReactNode } from "react";
import { Alert, TEXT_STYLES } from "./alert";

/** A text input, select or textarea of a form. */
export const INPUT_STYLE =
  "mt-1 block w-full rounded border border-zinc-300 px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900";

/** The id of a field's hint, for the control's aria-describedby. */
export const hintId = (id: string) => `${id}-hint`;

/**
 * A labelled form control: the label, the control (the child, which carries `id`), an optional hint under it
 * and the refusal that belongs to this field, if any.
 */
export function Field(props: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <label htmlFor={props.id} className={`text-sm font-medium ${props.className ?? ""}`.trim()}>
      {props.label}
      {props.children}
      {props.hint && (
        <span id={hintId(props.id)} className={`mt-1 block font-normal ${TEXT_STYLES.muted}`}>
          {props.hint}
        </span>
      )}
      {props.error && (
        <Alert as="span" className="mt-1 block font-normal">
          {props.error}
        </Alert>
      )}
    </label>
  );
}
