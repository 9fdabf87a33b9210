"use client";

import { useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { lazy, Suspense, useSyncExternalStore } from "react";
import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { serverQuery } from "@/lib/dashboard/queries/servers";
import { Alert, TEXT_STYLES } from "../ui/alert";
import { CredentialsPanel } from "./credentials-panel";
import { PowerPanel } from "./power-panel";
import { RenewalPanel } from "./renewal-panel";
import { ServerFacts } from "./server-facts";
import { ShortfallTopupLink } from "./shortfall-topup-link";
import { formatUtc, StatusBadge } from "./status-badge";
import { useServerChange } from "./use-server-change";

/** Everything below the power buttons: its code loads once the page has hydrated (see later-panels.tsx). */
const LaterPanels = lazy(() => import("./later-panels"));
const NetworkPanel = lazy(() => import("./network"));

const noSubscription = () => () => {};
/** False on the server and while hydrating, true from the first render after. */
const useHydrated = () =>
  useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );

/** Where the later panels go until their code is there, so that nothing above them moves. */
const LaterRoom = () => <div aria-busy="true" className="min-h-96" />;

/**
 * One server: its facts (refreshed while it is being built), root login, renewal, power, console, snapshots,
 * rescue mode, usage and termination. A server whose period lapsed shows until when its disk is kept, and can
 * be renewed until then.
 */
export function ServerDetail({ id }: { id: number }) {
  // Prefetched by the page: there from the first render, then polled while the server is being built.
  const { data: server, error } = useSuspenseQuery(serverQuery(id));
  const actions = useServerChange(id);
  const live = server.status !== "terminated";
  // A lapsed server's last disk is kept until `retained_until`: renewing it before brings it back.
  const retained = !live && server.retained_until !== null;
  const hydrated = useHydrated();

  return (
    <article className="space-y-8">
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

      <ServerFacts server={server} />

      <p aria-live="polite" className="text-sm">
        {actions.notice && <span data-testid="server-notice">{actions.notice}</span>}
        {actions.error && (
          <Alert as="span">
            {errorMessage(actions.error)}{" "}
            {actions.deficitCents > 0 && (
              <ShortfallTopupLink deficitCents={actions.deficitCents} className="underline" />
            )}
          </Alert>
        )}
      </p>

      {live && (
        // A reinstall gives a new password and host key: a login revealed before it is hidden again.
        <CredentialsPanel
          key={`${server.status}:${server.ssh_host_key_fingerprint}`}
          serverId={server.id}
          ip={server.ip}
          sshPort={server.ssh_port}
        />
      )}
      {(live || retained) && <RenewalPanel server={server} actions={actions} />}
      {server.status === "active" && <PowerPanel server={server} actions={actions} />}
      {(live || retained) &&
        (hydrated ? (
          <Suspense fallback={<LaterRoom />}>
            <LaterPanels server={server} actions={actions} />
            {live && <NetworkPanel server={server} />}
          </Suspense>
        ) : (
          <LaterRoom />
        ))}
    </article>
  );
}
