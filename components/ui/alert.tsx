import type { HTMLAttributes } from "react";

/** The dashboard's text looks: an error or refusal, and the quieter text beside a value or a control. */
export const TEXT_STYLES = {
  error: "text-red-700 dark:text-red-400",
  muted: "text-zinc-600 dark:text-zinc-400",
} as const;

type AlertProps = HTMLAttributes<HTMLElement> & {
  /** A span where the alert sits inside a label or a line of text. */
  as?: "p" | "span";
};

/** An error the user should read now: announced to screen readers (role="alert") and set in the error colour. */
export function Alert({ as: Tag = "p", className, ...props }: AlertProps) {
  return (
    <Tag
      role="alert"
      className={className ? `${TEXT_STYLES.error} ${className}` : TEXT_STYLES.error}
      {...props}
    />
  );
}
