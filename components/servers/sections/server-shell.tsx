"use client";

import { useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { serverQuery } from "@/lib/dashboard/queries/servers";
import { Alert, TEXT_STYLES } from "../../ui/alert";
import { formatUtc, StatusBadge } from "../status-badge";
import { SectionNav } from "./section-nav";

/**
 * What every section of a server's page shows above its own content: the way back, the host name and status
 * (refreshed while it is being built), why it is in that state, and the sections' links. A server whose
 * period lapsed shows until when its disk is kept, and can be renewed until then.
 */
export function ServerShell({ id, children }: { id: number; children: ReactNode }) {
  // Prefetched by the layout: there from the first render, then polled while the server is being built.
  const { data: server, error } = useSuspenseQuery(serverQuery(id));
  const retained = server.status === "terminated" && server.retained_until !== null;

  return (
    <article className="space-y-6">
      <Link prefetch={false} href="/dashboard/servers" className="text-sm underline">
        ← All servers
      </Link>
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold break-all">{server.hostname}</h1>
        <StatusBadge status={server.status} />
        {server.status === "provisioning" && (
          <span role="status" className={`text-sm ${TEXT_STYLES.muted}`}>
            Being built; this page updates by itself.
          </span>
        )}
      </header>

      {server.status_reason && (
        <p data-testid="server-status-reason" className="text-sm text-amber-800 dark:text-amber-300">
          {server.status_reason}
        </p>
      )}

      {retained && server.retained_until && (
        <p data-testid="retention-notice" className="text-sm text-amber-800 dark:text-amber-300">
          Its period lapsed, but its disk is kept until {formatUtc(server.retained_until)}. Renew it before
          then and it comes back on that disk, on the same address where it is still free.
        </p>
      )}

      {error && <Alert>{errorMessage(error)} What you see may be out of date.</Alert>}

      <SectionNav serverId={server.id} />
      <div className="space-y-8">{children}</div>
    </article>
  );
}
