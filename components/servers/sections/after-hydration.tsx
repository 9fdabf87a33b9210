"use client";

import { type ReactNode, Suspense } from "react";
import { useHydrated } from "../../ui/use-hydrated";

/** Where the panels go until their code is there (`room`: its height), so that nothing above them moves much. */
const Room = ({ room }: { room: string }) => <div aria-busy="true" className={room} />;

/**
 * Panels used now and then, given as React `lazy` components: rendered once the page has hydrated, so their code
 * is fetched then (one request) and is in no section's first load (e2e/browser/page-weight.spec.ts). React's own
 * `lazy`, not next/dynamic, whose loader adds 2 kB to the page.
 */
export function AfterHydration({ children, room = "min-h-48" }: { children: ReactNode; room?: string }) {
  const placeholder = <Room room={room} />;
  return useHydrated() ? <Suspense fallback={placeholder}>{children}</Suspense> : placeholder;
}
