"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRef, useState } from "react";
import { BUTTON_STYLES } from "@/components/ui/button";
import { findLocation, findOs, findPlan } from "@/lib/catalog/catalog";
import { apiUsdToCents, formatApiUsd } from "@/lib/money/cents";
import { BffError, bffFetch, errorMessage } from "@/lib/queries/bff-fetch";
import { newIdempotencyKey } from "@/lib/queries/idempotency";
import { serverQuery } from "@/lib/queries/servers";
import type { Server } from "@/lib/queries/types";
import { CredentialsPanel } from "./credentials-panel";
import { MachinePanels } from "./machine-panels";
import { ShortfallTopupLink } from "./shortfall-topup-link";
import { formatUtc, StatusBadge } from "./status-badge";

const button = BUTTON_STYLES.secondary;

/** One server: its facts (refreshed while it is being built), root login, renewal, power and termination. */
export function ServerDetail({ initialServer }: { initialServer: Server }) {
  const queryClient = useQueryClient();
  const { data: server = initialServer, error } = useQuery({
    ...serverQuery(initialServer.id),
    initialData: initialServer,
  });
  const [notice, setNotice] = useState("");
  const renewKey = useRef(newIdempotencyKey());

  // Every change answers with the whole server: put it in the cache so the page shows it at once.
  const update = useMutation({
    mutationFn: (change: {
      path: string;
      method: string;
      body?: unknown;
      headers?: Record<string, string>;
    }) => bffFetch<Server>(`/bff/servers/${server.id}${change.path}`, change),
    onSuccess: (updated) => {
      queryClient.setQueryData(serverQuery(server.id).queryKey, updated);
      void queryClient.invalidateQueries({ queryKey: ["servers"], exact: true });
      void queryClient.invalidateQueries({ queryKey: ["account"] });
    },
  });

  const act = (label: string, change: Parameters<typeof update.mutate>[0], after?: () => void) => {
    setNotice("");
    update.mutate(change, {
      onSuccess: () => {
        setNotice(label);
        after?.();
      },
    });
  };

  const live = server.status !== "terminated";
  const refusal = update.error instanceof BffError ? update.error : undefined;
  const deficitCents =
    refusal?.code === "insufficient_balance" ? apiUsdToCents(Number(refusal.body.deficit ?? 0)) : 0;

  return (
    <article className="space-y-8">
      <Link href="/dashboard/servers" className="text-sm underline">
        ← All servers
      </Link>
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold break-all">{server.hostname}</h1>
        <StatusBadge status={server.status} />
        {server.status === "provisioning" && (
          <span role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
            Being built; this page updates by itself.
          </span>
        )}
      </header>

      {server.status_reason && (
        <p data-testid="server-status-reason" className="text-sm text-amber-800 dark:text-amber-300">
          {server.status_reason}
        </p>
      )}

      {error && (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {errorMessage(error)} What you see may be out of date.
        </p>
      )}

      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
        <dt className="text-zinc-600 dark:text-zinc-400">IPv4</dt>
        <dd className="font-mono" data-testid="server-ip">
          {server.ip ?? "assigned when built"}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Plan</dt>
        <dd>
          {findPlan(server.plan)?.name ?? server.plan}, {formatApiUsd(server.price_usd)} per{" "}
          {server.cycle === "annual" ? "year" : "month"}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Location</dt>
        <dd>
          {findLocation(server.location)?.city ?? server.location}, {findLocation(server.location)?.country}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">System</dt>
        <dd>{findOs(server.os)?.name ?? server.os}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">SSH</dt>
        <dd className="font-mono break-all" data-testid="server-ssh">
          {server.ip
            ? `ssh ${server.ssh_port && server.ssh_port !== 22 ? `-p ${server.ssh_port} ` : ""}root@${server.ip}`
            : "—"}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Host key</dt>
        <dd className="font-mono break-all" data-testid="server-host-key">
          {server.ssh_host_key_fingerprint ?? "—"}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Size</dt>
        <dd>
          {server.vcpus ?? "?"} vCPU · {server.memory_mb ?? "?"} MB RAM · {server.disk_gb ?? "?"} GB disk
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Machine</dt>
        <dd data-testid="server-provisioner">
          {server.provisioner === "libvirt"
            ? "Real virtual machine (KVM/QEMU)"
            : "Simulated (demo): no machine runs"}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Power</dt>
        <dd data-testid="power-state">{server.power_state ?? "—"}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Paid until</dt>
        <dd data-testid="server-expires">{formatUtc(server.expires_at)}</dd>
        {server.terminates_at && (
          <>
            <dt className="text-zinc-600 dark:text-zinc-400">Terminated on</dt>
            <dd className="text-red-700 dark:text-red-400">
              {formatUtc(server.terminates_at)} unless renewed
            </dd>
          </>
        )}
        {server.terminated_at && (
          <>
            <dt className="text-zinc-600 dark:text-zinc-400">Terminated</dt>
            <dd>{formatUtc(server.terminated_at)}</dd>
          </>
        )}
      </dl>

      <p aria-live="polite" className="text-sm">
        {notice && <span data-testid="server-notice">{notice}</span>}
        {update.error && (
          <span role="alert" className="text-red-700 dark:text-red-400">
            {errorMessage(update.error)}{" "}
            {deficitCents > 0 && <ShortfallTopupLink deficitCents={deficitCents} className="underline" />}
          </span>
        )}
      </p>

      {live && (
        <CredentialsPanel
          key={`${server.status}:${server.ssh_host_key_fingerprint}`}
          serverId={server.id}
          ip={server.ip}
          sshPort={"ssh_port" in server ? (server.ssh_port as number | null) : undefined}
        />
      )}

      {live && (
        <section aria-labelledby="billing-heading" className="space-y-3">
          <h2 id="billing-heading" className="text-lg font-semibold">
            Renewal
          </h2>
          <div className="flex flex-wrap items-center gap-4">
            <button
              type="button"
              className={button}
              disabled={update.isPending}
              onClick={() =>
                act(
                  "Renewed.",
                  { path: "/renew", method: "POST", headers: { "idempotency-key": renewKey.current } },
                  () => {
                    renewKey.current = newIdempotencyKey();
                  },
                )
              }
            >
              Renew for one {server.cycle === "annual" ? "year" : "month"} ({formatApiUsd(server.price_usd)})
            </button>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={server.auto_renew}
                disabled={update.isPending}
                onChange={(e) =>
                  act(e.target.checked ? "Automatic renewal is on." : "Automatic renewal is off.", {
                    path: "",
                    method: "PATCH",
                    body: { auto_renew: e.target.checked },
                  })
                }
              />
              Renew automatically from the balance
            </label>
          </div>
        </section>
      )}

      {server.status === "active" && (
        <section aria-labelledby="power-heading" className="space-y-3">
          <h2 id="power-heading" className="text-lg font-semibold">
            Power
          </h2>
          <div className="flex flex-wrap gap-2">
            {(["start", "stop", "reboot"] as const).map((action) => (
              <button
                key={action}
                type="button"
                className={button}
                disabled={
                  update.isPending ||
                  (action === "start" && server.power_state === "running") ||
                  (action !== "start" && server.power_state === "stopped")
                }
                onClick={() =>
                  act(`${action[0]?.toUpperCase()}${action.slice(1)} sent.`, {
                    path: "/actions",
                    method: "POST",
                    body: { action },
                  })
                }
              >
                {action[0]?.toUpperCase()}
                {action.slice(1)}
              </button>
            ))}
          </div>
        </section>
      )}

      {live && <MachinePanels server={server} />}

      {live && (
        <TerminatePanel
          hostname={server.hostname}
          pending={update.isPending}
          onConfirm={() => act("The server is terminated.", { path: "", method: "DELETE" })}
        />
      )}
    </article>
  );
}

/** Termination cannot be undone and refunds nothing, so it needs the host name typed out. */
function TerminatePanel(props: { hostname: string; pending: boolean; onConfirm: () => void }) {
  const [typed, setTyped] = useState("");
  return (
    <section
      aria-labelledby="terminate-heading"
      className="space-y-3 rounded border border-red-300 p-4 dark:border-red-900"
    >
      <h2 id="terminate-heading" className="text-lg font-semibold">
        Terminate
      </h2>
      <p className="text-sm">
        The server and its disk are destroyed at once and the unused time is not refunded. Type{" "}
        <code className="font-semibold">{props.hostname}</code> to confirm.
      </p>
      <form
        className="flex flex-wrap gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          if (typed === props.hostname) props.onConfirm();
        }}
      >
        <label htmlFor="terminate-confirm" className="sr-only">
          Host name to confirm termination
        </label>
        <input
          id="terminate-confirm"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          className="rounded border border-zinc-300 px-3 py-1.5 font-mono dark:border-zinc-700 dark:bg-zinc-900"
        />
        <button
          type="submit"
          disabled={typed !== props.hostname || props.pending}
          className={BUTTON_STYLES.danger}
        >
          Terminate server
        </button>
      </form>
    </section>
  );
}
