"use client";

import { lazy } from "react";
import { ActionNotice } from "../action-notice";
import { useServerChange } from "../use-server-change";
import { AfterHydration } from "./after-hydration";
import { SectionUnavailable } from "./section-unavailable";
import { lifeOf, useServer } from "./use-server";

const SettingsPanels = lazy(() => import("./settings-panels"));

/** What changes the server as a whole: its size, a reinstall, and its end (their code loads after the page). */
export function SettingsSection({ id }: { id: number }) {
  const server = useServer(id);
  const actions = useServerChange(id);
  const { live } = lifeOf(server);
  return (
    <>
      <ActionNotice actions={actions} />
      {live ? (
        <AfterHydration>
          <SettingsPanels server={server} actions={actions} />
        </AfterHydration>
      ) : (
        <SectionUnavailable>This server is terminated: nothing is left to change.</SectionUnavailable>
      )}
    </>
  );
}
