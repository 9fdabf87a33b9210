"use client";

import type { Server } from "@/lib/dashboard/queries/types";
import { ReinstallPanel } from "../reinstall-panel";
import { ResizePanel } from "../resize-panel";
import { TerminatePanel } from "../terminate-panel";
import type { ServerActions } from "../use-server-change";

/** The settings section's forms: resize, reinstall, terminate. Each is used now and then: loaded after the page. */
export default function SettingsPanels({ server, actions }: { server: Server; actions: ServerActions }) {
  return (
    <>
      {server.status === "active" && <ResizePanel server={server} />}
      {server.status !== "suspended" && <ReinstallPanel server={server} />}
      <TerminatePanel hostname={server.hostname} hold={server.hold} actions={actions} />
    </>
  );
}
