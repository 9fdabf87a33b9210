"use client";

import { ActionNotice } from "../action-notice";
import { ConsolePanel } from "../console/console-panel";
import { PowerPanel } from "../power-panel";
import { useServerChange } from "../use-server-change";
import { SectionUnavailable } from "./section-unavailable";
import { useServer } from "./use-server";

/**
 * The serial console, with the power buttons beside it (a reboot is watched there); the terminal itself loads
 * only when it is opened.
 */
export function ConsoleSection({ id }: { id: number }) {
  const server = useServer(id);
  const actions = useServerChange(id);
  if (server.status !== "active") {
    return <SectionUnavailable>The console opens while the server is active.</SectionUnavailable>;
  }
  return (
    <>
      <PowerPanel server={server} actions={actions} />
      <ActionNotice actions={actions} />
      <ConsolePanel server={server} />
    </>
  );
}
