"use client";

import { useRef, useState } from "react";

/**
 * One request a form sends, with its pending and error state: all the landing, sign-in and sign-up pages
 * need of a mutation, so their first load carries no query client. A second start while one runs is ignored.
 */
export function useAction<Input, Output>(
  run: (input: Input) => Promise<Output>,
  on: { success?: (output: Output) => void; failure?: (error: unknown) => void } = {},
) {
  const [isPending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const running = useRef(false);
  const start = (input: Input) => {
    if (running.current) return;
    running.current = true;
    setPending(true);
    setError(null);
    run(input)
      .then(
        (output) => on.success?.(output),
        (failure: unknown) => {
          setError(failure);
          on.failure?.(failure);
        },
      )
      .finally(() => {
        running.current = false;
        setPending(false);
      });
  };
  return { start, isPending, error };
}
