"use client";

import type { InputHTMLAttributes, ReactNode } from "react";
import { useHydrated } from "./use-hydrated";

/** The card looks: a roomy one with a ring for a main choice, a compact one for a list of options. */
const CARD_STYLES = {
  roomy:
    "flex cursor-pointer items-start gap-3 rounded border border-zinc-300 p-3 has-[:checked]:border-zinc-900 has-[:checked]:ring-1 has-[:checked]:ring-zinc-900 dark:border-zinc-700 dark:has-[:checked]:border-zinc-100 dark:has-[:checked]:ring-zinc-100",
  compact:
    "flex items-center gap-2 rounded border border-zinc-200 px-3 py-2 text-sm has-checked:border-zinc-900 dark:border-zinc-800 dark:has-checked:border-zinc-100",
} as const;

type RadioCardProps = Omit<InputHTMLAttributes<HTMLInputElement>, "type" | "children"> & {
  look?: keyof typeof CARD_STYLES;
  children: ReactNode;
};

/**
 * One option of a radio group drawn as a card that is marked while chosen; the whole card is the label. Like
 * `Button`, it is disabled until the page has hydrated: a choice made before that would show as checked while
 * the form, whose state had not heard of it, went on with the old one.
 */
export function RadioCard({ look = "roomy", children, disabled, ...input }: RadioCardProps) {
  const hydrated = useHydrated();
  return (
    <label className={CARD_STYLES[look]}>
      <input
        type="radio"
        className={look === "roomy" ? "mt-1" : undefined}
        disabled={disabled || !hydrated}
        {...input}
      />
      {children}
    </label>
  );
}
