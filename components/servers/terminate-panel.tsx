"use client";

import { useState } from "react";
import type { Server } from "@/lib/dashboard/queries/types";
import { Button } from "../ui/button";
import { Panel } from "../ui/panel";
import { HostnameConfirmField } from "./hostname-confirm";
import type { ServerActions } from "./use-server-change";

/**
 * Termination cannot be undone and refunds nothing, so it needs the host name typed out. While the operator
 * holds the server it is refused (what is being looked into is kept), and the panel says why instead.
 */
export function TerminatePanel({
  hostname,
  hold,
  actions,
}: {
  hostname: string;
  hold: Server["hold"];
  actions: ServerActions;
}) {
  const [typed, setTyped] = useState("");
  if (hold) {
    return (
      <Panel
        id="terminate"
        title="Terminate"
        className="space-y-3 rounded border border-red-300 p-4 dark:border-red-900"
      >
        <p className="text-sm" data-testid="terminate-held">
          The operator suspended this server ({hold.reason}). Until the suspension is lifted it cannot be
          terminated and its snapshots cannot be deleted, so that nothing being looked into is lost. You can
          still renew it.
        </p>
      </Panel>
    );
  }
  return (
    <Panel
      id="terminate"
      title="Terminate"
      className="space-y-3 rounded border border-red-300 p-4 dark:border-red-900"
    >
      <p className="text-sm">
        The server and its disk are destroyed at once and the unused time is not refunded. Type{" "}
        <code className="font-semibold">{hostname}</code> to confirm.
      </p>
      <form
        className="flex flex-wrap gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          if (typed === hostname) actions.act("The server is terminated.", { path: "", method: "DELETE" });
        }}
      >
        <HostnameConfirmField
          id="terminate-confirm"
          label="Host name to confirm termination"
          value={typed}
          onChange={setTyped}
        />
        <Button type="submit" variant="danger" disabled={typed !== hostname || actions.pending}>
          Terminate server
        </Button>
      </form>
    </Panel>
  );
}
