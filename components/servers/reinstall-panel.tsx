"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { BffError, bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "@/lib/dashboard/queries/idempotency";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { serverQuery } from "@/lib/dashboard/queries/servers";
import type { Server } from "@/lib/dashboard/queries/types";
import { Checkbox } from "../ui/checkbox";
import { HostnameConfirmField } from "./hostname-confirm";
import { UserDataField } from "./user-data-field";

type OsChoice = { id: string; name: string; available: boolean };

/** A reinstall in progress: the server is `provisioning` again and its status reason says so. */
export const isReinstalling = (server: Server) =>
  server.status === "provisioning" && (server.status_reason ?? "").startsWith("Reinstalling");

/**
 * Reinstall: choose an OS (the current one by default), keep a snapshot first or not, type the host name, and
 * the disk is wiped. The page follows the server until it is active again; the new password is then revealed
 * under "Root login".
 */
export function ReinstallPanel({ server }: { server: Server }) {
  const queryClient = useQueryClient();
  const ids = useId();
  const [os, setOs] = useState(server.os);
  const [typed, setTyped] = useState("");
  const [snapshotFirst, setSnapshotFirst] = useState(true);
  const [started, setStarted] = useState(false);
  const intent: IntentRef = useRef(undefined);
  const choices = useQuery({
    queryKey: ["servers", server.id, "reinstall-os"],
    queryFn: () => bffFetch<{ os: OsChoice[] }>(`/bff/servers/${server.id}/reinstall`),
    staleTime: 300_000,
  });
  const reinstall = useMutation({
    mutationFn: (body: { os: string; confirm: string; snapshot_first: boolean; user_data?: string }) =>
      bffFetch<Server>(`/bff/servers/${server.id}/reinstall`, {
        method: "POST",
        body,
        headers: { "idempotency-key": idempotencyKeyFor(intent, body) },
      }),
    onSettled: (_data, error) => settleIntent(intent, error),
    onSuccess: (updated) => {
      setTyped("");
      setStarted(true);
      queryClient.setQueryData(serverQuery(server.id).queryKey, updated);
      void queryClient.invalidateQueries({ queryKey: ["servers"], exact: true });
      void queryClient.invalidateQueries({ queryKey: queryKeys.servers.snapshots(server.id) });
    },
  });

  const reinstalling = isReinstalling(server);
  const options = choices.data?.os ?? [{ id: server.os, name: server.os, available: true }];

  return (
    <section
      aria-labelledby={`${ids}-heading`}
      className="space-y-3 rounded border border-amber-300 p-4 dark:border-amber-900"
    >
      <h2 id={`${ids}-heading`} className="text-lg font-semibold">
        Reinstall
      </h2>
      {reinstalling ? (
        <p role="status" data-testid="reinstall-status" className="text-sm">
          Reinstalling {server.os}: the disk is being wiped and the system installed afresh. This page updates
          by itself.
        </p>
      ) : (
        <>
          {started && server.status === "active" && (
            <p role="status" data-testid="reinstall-status" className="text-sm">
              Reinstalled with {server.os}. Reveal the new root password on the Overview, under Root login;
              the SSH host key is new too.
            </p>
          )}
          <p className="text-sm">
            Wipes the disk and installs the chosen system with a new root password and a new SSH host key. The
            address, plan and paid period stay. With a snapshot first, the old disk can be restored under
            Snapshots &amp; rescue. Type <code className="font-semibold">{server.hostname}</code> to confirm.
          </p>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={(event) => {
              event.preventDefault();
              const userData = String(new FormData(event.currentTarget).get("user_data") ?? "");
              if (typed === server.hostname) {
                reinstall.mutate({
                  os,
                  confirm: typed,
                  snapshot_first: snapshotFirst,
                  ...(userData.trim() ? { user_data: userData } : {}),
                });
              }
            }}
          >
            <label className="flex flex-col gap-1 text-sm">
              Operating system
              <select
                value={os}
                onChange={(e) => setOs(e.target.value)}
                className="rounded border border-zinc-300 px-3 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
              >
                {options.map((choice) => (
                  <option key={choice.id} value={choice.id} disabled={!choice.available}>
                    {choice.name}
                    {choice.available ? "" : " (not available here)"}
                  </option>
                ))}
              </select>
            </label>
            <Checkbox checked={snapshotFirst} onChange={setSnapshotFirst}>
              Take a snapshot first
            </Checkbox>
            <div className="basis-full">
              <UserDataField
                id={`${ids}-user-data`}
                error={
                  reinstall.error instanceof BffError && reinstall.error.code === "invalid_user_data"
                    ? reinstall.error.message
                    : undefined
                }
              />
            </div>
            <HostnameConfirmField
              id={`${ids}-confirm`}
              label="Host name to confirm reinstall"
              value={typed}
              onChange={setTyped}
            />
            <Button
              type="submit"
              variant="danger"
              disabled={typed !== server.hostname || reinstall.isPending || server.status !== "active"}
            >
              {reinstall.isPending ? "Starting reinstall…" : "Reinstall server"}
            </Button>
          </form>
        </>
      )}
      {reinstall.error &&
        !(reinstall.error instanceof BffError && reinstall.error.code === "invalid_user_data") && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {errorMessage(reinstall.error)}
          </p>
        )}
    </section>
  );
}
