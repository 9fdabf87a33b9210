"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/panel";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "@/lib/dashboard/queries/idempotency";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { snapshotsQuery } from "@/lib/dashboard/queries/servers";
import type { Server, Snapshot } from "@/lib/dashboard/queries/types";
import { Alert, TEXT_STYLES } from "../ui/alert";
import { AfterHydration } from "./sections/after-hydration";
import { formatUtc } from "./status-badge";

/** The schedule's form is used now and then: its code loads once the page has hydrated. */
const SnapshotScheduleForm = lazy(() => import("./snapshot-schedule"));
/** So is restoring one: its form loads when Restore is pressed. */
const SnapshotRestoreForm = lazy(() => import("./snapshot-restore"));

const UNITS = ["B", "KB", "MB", "GB", "TB"] as const;

/** Bytes in the largest unit that keeps the number at 1 or more: "1.2 GB". */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return "—";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** How long ago `iso` was, in its largest whole unit ("3 hours ago"; under a minute: "just now"). */
export function formatAge(iso: string, at: number = Date.now()): string {
  const elapsed = at - Date.parse(iso);
  for (const [unit, ms] of STEPS) {
    if (elapsed >= ms) return relative.format(-Math.floor(elapsed / ms), unit);
  }
  return "just now";
}

const STATE_LABELS: Record<Snapshot["state"], string> = {
  creating: "being taken…",
  available: "ready",
  failed: "failed",
  deleting: "being deleted…",
};

const CONSISTENCY_LABELS: Record<NonNullable<Snapshot["consistency"]>, string> = {
  powered_off: "taken while off",
  frozen: "filesystems frozen",
  crash_consistent: "crash-consistent",
};

/**
 * The server's snapshots: take one (optionally named), list them with size and age, restore one after typing
 * the host name (the page names what is lost), delete one. Restoring turns the server `provisioning` until it
 * runs again on the snapshot's disk; the page follows it.
 */
export function SnapshotsPanel({ server }: { server: Server }) {
  const queryClient = useQueryClient();
  const list = useQuery(snapshotsQuery(server.id));
  const [name, setName] = useState("");
  const [restoring, setRestoring] = useState<Snapshot>();
  const takeIntent: IntentRef = useRef(undefined);

  const refreshList = () =>
    queryClient.invalidateQueries({ queryKey: queryKeys.servers.snapshots(server.id) });
  const take = useMutation({
    mutationFn: (body: { name?: string }) =>
      bffFetch<Snapshot>(`/bff/servers/${server.id}/snapshots`, {
        method: "POST",
        body,
        headers: { "idempotency-key": idempotencyKeyFor(takeIntent, body) },
      }),
    onSettled: (_data, error) => settleIntent(takeIntent, error),
    onSuccess: () => {
      setName("");
      void refreshList();
    },
  });
  const remove = useMutation({
    mutationFn: (snapshot: Snapshot) =>
      bffFetch<Snapshot>(`/bff/servers/${server.id}/snapshots/${snapshot.id}`, { method: "DELETE" }),
    onSuccess: () => void refreshList(),
  });

  const active = server.status === "active";
  const snapshots = list.data?.snapshots ?? [];
  const limit = list.data?.limit;
  const failure = take.error ?? remove.error ?? list.error;

  return (
    <Panel id="snapshots" title="Snapshots">
      <p className="text-sm">
        A snapshot is a copy of the whole disk, taken while the server runs (its filesystems are frozen for
        the moment of the copy when the guest agent answers). Snapshots are free
        {limit ? `; a server keeps up to ${limit}` : ""}, and they are deleted with the server.
      </p>
      {server.hold && (
        <p className="text-sm text-amber-800 dark:text-amber-300" data-testid="snapshots-held">
          While the operator&apos;s suspension lasts ({server.hold.reason}) no snapshot is taken or deleted:
          they are kept as they are until it is lifted.
        </p>
      )}
      {active && (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            take.mutate(name.trim() ? { name: name.trim() } : {});
          }}
        >
          <label className="flex flex-col gap-1 text-sm">
            Name (optional)
            <input
              value={name}
              maxLength={64}
              onChange={(e) => setName(e.target.value)}
              placeholder="Before the upgrade"
              className="rounded border border-zinc-300 px-3 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
            />
          </label>
          <Button type="submit" disabled={take.isPending}>
            {take.isPending ? "Taking snapshot…" : "Take snapshot"}
          </Button>
        </form>
      )}

      {list.data && server.status !== "terminated" && (
        <AfterHydration room="min-h-10">
          {/* Keyed by the schedule as saved, so the form shows it again after a save or a refresh. */}
          <SnapshotScheduleForm
            key={JSON.stringify(list.data.schedule)}
            serverId={server.id}
            schedule={list.data.schedule}
          />
        </AfterHydration>
      )}

      {list.isPending ? (
        <p className={`text-sm ${TEXT_STYLES.muted}`}>Loading snapshots…</p>
      ) : snapshots.length === 0 ? (
        <p className={`text-sm ${TEXT_STYLES.muted}`} data-testid="no-snapshots">
          No snapshots yet.
        </p>
      ) : (
        <ul className="divide-y divide-zinc-200 text-sm dark:divide-zinc-800" data-testid="snapshot-list">
          {snapshots.map((snapshot) => (
            <li key={snapshot.id} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-2">
              <div className="min-w-0 flex-1" data-testid="snapshot">
                <p className="font-medium break-all">{snapshot.name}</p>
                <p className={TEXT_STYLES.muted}>
                  <time dateTime={snapshot.created_at} title={formatUtc(snapshot.created_at)}>
                    {formatAge(snapshot.created_at)}
                  </time>{" "}
                  · {formatBytes(snapshot.size_bytes)} ·{" "}
                  <span data-testid="snapshot-state">{STATE_LABELS[snapshot.state]}</span>
                  {snapshot.consistency && ` · ${CONSISTENCY_LABELS[snapshot.consistency]}`}
                  {snapshot.kept_until && ` · kept until ${formatUtc(snapshot.kept_until)}`}
                </p>
                {snapshot.failure_reason && <p className={TEXT_STYLES.error}>{snapshot.failure_reason}</p>}
              </div>
              {active && snapshot.state === "available" && snapshot.kind !== "expiry" && (
                <Button
                  onClick={() => setRestoring(snapshot)}
                  disabled={server.rescue !== null}
                  aria-label={`Restore ${snapshot.name}`}
                >
                  Restore
                </Button>
              )}
              {snapshot.state !== "deleting" && snapshot.state !== "creating" && !server.hold && (
                <Button
                  onClick={() => remove.mutate(snapshot)}
                  disabled={remove.isPending}
                  aria-label={`Delete ${snapshot.name}`}
                >
                  Delete
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}

      {restoring && (
        <Suspense fallback={null}>
          <SnapshotRestoreForm
            key={restoring.id}
            server={server}
            snapshot={restoring}
            onDone={() => setRestoring(undefined)}
          />
        </Suspense>
      )}

      {failure && <Alert className="text-sm">{errorMessage(failure)}</Alert>}
    </Panel>
  );
}
