"use client";

import { ActionNotice } from "../action-notice";
import { ReinstallPanel } from "../reinstall-panel";
import { ResizePanel } from "../resize-panel";
import { TerminatePanel } from "../terminate-panel";
import { useServerChange } from "../use-server-change";
import { SectionUnavailable } from "./section-unavailable";
import { lifeOf, useServer } from "./use-server";

/** What changes the server as a whole: its size, a reinstall, and its end. */
export function SettingsSection({ id }: { id: number }) {
  const server = useServer(id);
  const actions = useServerChange(id);
  const { live } = lifeOf(server);
  return (
    <>
      <ActionNotice actions={actions} />
      {!live && (
        <SectionUnavailable>This server is terminated: nothing is left to change.</SectionUnavailable>
      )}
      {server.status === "active" && <ResizePanel server={server} />}
      {live && server.status !== "suspended" && <ReinstallPanel server={server} />}
      {live && <TerminatePanel hostname={server.hostname} actions={actions} />}
    </>
  );
}
