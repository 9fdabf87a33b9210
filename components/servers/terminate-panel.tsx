"use client";

import { useState } from "react";
import { Button } from "../ui/button";
import { Panel } from "../ui/panel";
import { HostnameConfirmField } from "./hostname-confirm";
import type { ServerActions } from "./use-server-change";

/** Termination cannot be undone and refunds nothing, so it needs the host name typed out. */
export function TerminatePanel({ hostname, actions }: { hostname: string; actions: ServerActions }) {
  const [typed, setTyped] = useState("");
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
