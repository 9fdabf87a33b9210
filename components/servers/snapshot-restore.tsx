"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { type IntentRef, idempotencyKeyFor, settleIntent } from "@/lib/dashboard/queries/idempotency";
import { queryKeys } from "@/lib/dashboard/queries/query-keys";
import { serverQuery } from "@/lib/dashboard/queries/servers";
import type { Server, Snapshot } from "@/lib/dashboard/queries/types";
import { Alert } from "../ui/alert";
import { HostnameConfirmField } from "./hostname-confirm";
import { formatUtc } from "./status-badge";

/**
 * Restoring one snapshot, after its host name is typed (the form names what is lost). A module of its own, loaded
 * when Restore is pressed: most visits to the snapshots never restore one.
 */
export default function SnapshotRestoreForm({
  server,
  snapshot,
  onDone,
}: {
  server: Server;
  snapshot: Snapshot;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const ids = useId();
  const [typed, setTyped] = useState("");
  const intent: IntentRef = useRef(undefined);
  const restore = useMutation({
    mutationFn: (body: { confirm: string }) =>
      bffFetch<Server>(`/bff/servers/${server.id}/snapshots/${snapshot.id}/restore`, {
        method: "POST",
        body,
        headers: { "idempotency-key": idempotencyKeyFor(intent, { id: snapshot.id, ...body }) },
      }),
    onSettled: (_data, error) => settleIntent(intent, error),
    onSuccess: (updated) => {
      queryClient.setQueryData(serverQuery(server.id).queryKey, updated);
      void queryClient.invalidateQueries({ queryKey: queryKeys.servers.all(), exact: true });
      onDone();
    },
  });

  return (
    <form
      aria-labelledby={`${ids}-restore`}
      className="space-y-2 rounded border border-amber-300 p-3 dark:border-amber-900"
      onSubmit={(event) => {
        event.preventDefault();
        if (typed === server.hostname) restore.mutate({ confirm: typed });
      }}
    >
      <p id={`${ids}-restore`} className="text-sm" data-testid="restore-warning">
        Restoring “{snapshot.name}” returns the disk to {formatUtc(snapshot.created_at)}: everything written
        to it since then is lost. The server restarts; its address, SSH host key, password and paid period
        stay. Type <code className="font-semibold">{server.hostname}</code> to confirm.
      </p>
      <div className="flex flex-wrap items-end gap-2">
        <HostnameConfirmField
          id={`${ids}-confirm`}
          label="Host name to confirm restore"
          value={typed}
          onChange={setTyped}
        />
        <Button type="submit" variant="danger" disabled={typed !== server.hostname || restore.isPending}>
          {restore.isPending ? "Starting restore…" : "Restore snapshot"}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
      {restore.error && <Alert className="text-sm">{errorMessage(restore.error)}</Alert>}
    </form>
  );
}
