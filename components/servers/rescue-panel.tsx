"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Panel } from "@/components/ui/panel";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { newIdempotencyKey } from "@/lib/dashboard/queries/idempotency";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { fetchCredentials, serverQuery } from "@/lib/dashboard/queries/servers";
import type { Server } from "@/lib/dashboard/queries/types";
import { Alert } from "../ui/alert";

/**
 * Rescue mode: the server boots a small rescue system with its own disk attached but not mounted, for a
 * server that no longer boots. The temporary root password is read only on reveal (like the root password)
 * and held in this component's state alone.
 */
export function RescuePanel({ server }: { server: Server }) {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState<string>();
  const [revealError, setRevealError] = useState("");
  const enterKey = useRef(newIdempotencyKey());
  const change = useMutation({
    mutationFn: (method: "POST" | "DELETE") =>
      bffFetch<Server>(`/bff/servers/${server.id}/rescue`, {
        method,
        ...(method === "POST" ? { body: {}, headers: { "idempotency-key": enterKey.current } } : {}),
      }),
    onSuccess: (updated, method) => {
      if (method === "POST") enterKey.current = newIdempotencyKey();
      setPassword(undefined);
      queryClient.setQueryData(serverQuery(server.id).queryKey, updated);
      void queryClient.invalidateQueries({ queryKey: queryKeys.servers.all(), exact: true });
    },
  });

  async function reveal() {
    setRevealError("");
    try {
      const login = await fetchCredentials(server.id);
      if (login.rescue_password) setPassword(login.rescue_password);
      else setRevealError("The rescue system is not running.");
    } catch (failure) {
      setRevealError(errorMessage(failure));
    }
  }

  const rescue = server.rescue;
  return (
    <Panel id="rescue" title="Rescue mode">
      {!rescue ? (
        <>
          <p className="text-sm">
            For a server that no longer boots: it is shut down and starts a small rescue system instead, with
            its disk attached as <code>/dev/vda</code> (not mounted) and a temporary root password, on its
            usual address. Your files stay on the disk.
          </p>
          <Button
            onClick={() => change.mutate("POST")}
            disabled={change.isPending || server.status !== "active"}
          >
            {change.isPending ? "Starting rescue system…" : "Boot rescue system"}
          </Button>
        </>
      ) : (
        <>
          <p role="status" className="text-sm" data-testid="rescue-status">
            {rescue.state === "entering" && "Starting the rescue system; this page updates by itself."}
            {rescue.state === "leaving" &&
              "Starting the server's own system again; this page updates by itself."}
            {rescue.state === "active" &&
              "The rescue system runs: log in as root on the usual address with the rescue password. The disk is /dev/vda (mount /dev/vda /mnt)."}
          </p>
          {rescue.state !== "leaving" && (
            <dl className="grid grid-cols-[10rem_1fr] gap-y-2 text-sm">
              <dt>Rescue password</dt>
              <dd className="break-all font-mono" data-testid="rescue-password">
                {password ?? "••••••••••••"}
              </dd>
              {rescue.ssh_host_key_fingerprint && (
                <>
                  <dt>Rescue host key</dt>
                  <dd className="break-all font-mono">{rescue.ssh_host_key_fingerprint}</dd>
                </>
              )}
            </dl>
          )}
          <div className="flex flex-wrap gap-2">
            {rescue.state !== "leaving" &&
              (password ? (
                <>
                  <CopyButton value={password} label="Copy rescue password" />
                  <Button onClick={() => setPassword(undefined)}>Hide rescue password</Button>
                </>
              ) : (
                <Button onClick={reveal}>Reveal rescue password</Button>
              ))}
            {rescue.state === "active" && (
              <Button onClick={() => change.mutate("DELETE")} disabled={change.isPending}>
                {change.isPending ? "Leaving rescue mode…" : "Leave rescue mode"}
              </Button>
            )}
          </div>
        </>
      )}
      {(change.error || revealError) && (
        <Alert className="text-sm">{change.error ? errorMessage(change.error) : revealError}</Alert>
      )}
    </Panel>
  );
}
