"use client";

import type { ButtonHTMLAttributes } from "react";
import { useHydrated } from "./use-hydrated";

/** The dashboard's button looks: one for the main action of a form, one for the rest, one for destruction. */
export const BUTTON_STYLES = {
  primary:
    "rounded bg-zinc-900 px-4 py-2 text-white disabled:cursor-not-allowed disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900",
  secondary:
    "rounded border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800",
  danger: "rounded bg-red-700 px-3 py-1.5 text-white disabled:cursor-not-allowed disabled:opacity-50",
} as const;

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: keyof typeof BUTTON_STYLES;
  /** Set on the submit button of a form that works without script (a plain GET search form). */
  worksWithoutScript?: boolean;
};

/**
 * A button of the dashboard's. It stays disabled until the page has hydrated, whatever its type: a click before
 * its handler exists would do nothing, and a submit would send the form natively, as a GET to the page with
 * every field (a login token, a password) in the address, and reload it empty. A disabled default button also
 * stops Enter from submitting. Only a form built to work without script opts out.
 */
export function Button({
  variant = "secondary",
  className,
  type = "button",
  disabled,
  worksWithoutScript = false,
  ...props
}: ButtonProps) {
  const hydrated = useHydrated();
  return (
    <button
      type={type}
      className={className ? `${BUTTON_STYLES[variant]} ${className}` : BUTTON_STYLES[variant]}
      disabled={disabled || (!hydrated && !worksWithoutScript)}
      {...props}
    />
  );
}
