"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { BffError } from "@/lib/dashboard/queries/bff-fetch";

/** Retries only what may heal by itself: network errors and 5xx, twice. A 4xx is an answer, not a glitch. */
function shouldRetry(failureCount: number, error: unknown) {
  if (error instanceof BffError && error.status < 500) return false;
  return failureCount < 2;
}

/** One query cache per browser tab, shared by the dashboard pages. */
export function QueryProvider({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // A page's data comes with it, read by the server as it rendered (components/providers/prefetched):
          // fresh for 30 s, so a slow network or a busy server between render and hydration does not ask again
          // for what the page has just brought. Live data polls on its own interval; mutations invalidate.
          queries: { staleTime: 30_000, retry: shouldRetry, refetchOnWindowFocus: true },
          mutations: { retry: false },
        },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
