"use client";

/**
 * The host name typed out before a change that loses data (reinstall, restore, termination); its label, read by
 * screen readers only, says what it confirms.
 */
export function HostnameConfirmField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <>
      <label htmlFor={props.id} className="sr-only">
        {props.label}
      </label>
      <input
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        autoComplete="off"
        className="rounded border border-zinc-300 px-3 py-1.5 font-mono dark:border-zinc-700 dark:bg-zinc-900"
      />
    </>
  );
}
