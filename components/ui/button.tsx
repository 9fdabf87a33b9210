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

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof BUTTON_STYLES };

/**
 * A button of the dashboard's. One that only runs script (`type="button"`) stays disabled until the page has
 * hydrated: a click before its handler exists would do nothing, and say nothing. A submit button works before
 * (its form posts).
 */
export function Button({
  variant = "secondary",
  className,
  type = "button",
  disabled,
  ...props
}: ButtonProps) {
  const hydrated = useHydrated();
  return (
    <button
      type={type}
      className={className ? `${BUTTON_STYLES[variant]} ${className}` : BUTTON_STYLES[variant]}
      disabled={disabled || (type === "button" && !hydrated)}
      {...props}
    />
  );
}
