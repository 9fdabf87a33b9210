"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * The account-creation call with this deployment's own origin, read in the browser: the page is static, and the
 * server never derives an origin from request headers.
 */
export function ApiCurl() {
  const origin = useSyncExternalStore(
    subscribe,
    () => window.location.origin,
    () => null,
  );
  return (
    <pre className="overflow-x-auto rounded-lg bg-zinc-900 p-4 font-mono text-sm text-zinc-100">
      <code data-testid="api-curl">curl -X POST {origin ?? "…"}/api/v1/account</code>
    </pre>
  );
}
