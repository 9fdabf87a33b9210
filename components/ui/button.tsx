import type { ButtonHTMLAttributes } from "react";

/** The dashboard's button looks: one for the main action of a form, one for the rest, one for destruction. */
export const BUTTON_STYLES = {
  primary:
    "rounded bg-zinc-900 px-4 py-2 text-white disabled:cursor-not-allowed disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900",
  secondary:
    "rounded border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800",
  danger: "rounded bg-red-700 px-3 py-1.5 text-white disabled:cursor-not-allowed disabled:opacity-50",
} as const;

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof BUTTON_STYLES };

export function Button({ variant = "secondary", className, type = "button", ...props }: ButtonProps) {
  return (
    <button
      type={type}
      className={className ? `${BUTTON_STYLES[variant]} ${className}` : BUTTON_STYLES[variant]}
      {...props}
    />
  );
}
