"use client";

import { useState } from "react";
import { Alert } from "./alert";
import { Button } from "./button";

/**
 * Copies `value` and says so; `label` ("Copy address") names what is copied, for screen readers too. When the
 * browser refuses the clipboard, it says to copy by hand instead of failing silently.
 */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "refused">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
      setTimeout(() => setState("idle"), 2_000);
    } catch {
      setState("refused");
    }
  }
  return (
    <>
      <Button onClick={copy} aria-label={state === "copied" ? `${label}: copied` : label}>
        {state === "copied" ? "Copied" : label}
      </Button>
      {state === "refused" && (
        <Alert as="span" className="text-xs">
          The browser refused the clipboard; select it and copy by hand.
        </Alert>
      )}
    </>
  );
}
