"use client";

import type { Server } from "@/lib/dashboard/queries/types";
import { ConsolePanel } from "./console/console-panel";
import { MachinePanels } from "./machine-panels";
import { RescuePanel } from "./rescue-panel";
import { SnapshotsPanel } from "./snapshots-panel";
import { TerminatePanel } from "./terminate-panel";
import { UsagePanel } from "./usage-panel";
import type { ServerActions } from "./use-server-change";

/**
 * A server's panels below its power buttons: snapshots, rescue, usage, console, root password and reinstall,
 * termination. Each is used now and then, and all sit below a phone's first screen, so the server page loads
 * their code after it has hydrated (one request) instead of in its first load.
 */
export default function LaterPanels({ server, actions }: { server: Server; actions: ServerActions }) {
  const live = server.status !== "terminated";
  const retained = !live && server.retained_until !== null;
  return (
    <>
      {(live || retained) && <SnapshotsPanel server={server} />}
      {server.status === "active" && <RescuePanel server={server} />}
      {(server.status === "active" || server.status === "suspended") && <UsagePanel server={server} />}
      {server.status === "active" && <ConsolePanel server={server} />}
      {live && <MachinePanels server={server} />}
      {live && <TerminatePanel hostname={server.hostname} hold={server.hold} actions={actions} />}
    </>
  );
}
