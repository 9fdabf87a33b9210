"use client";

import { lazy } from "react";
import { ActionNotice } from "../action-notice";
import { PowerPanel } from "../power-panel";
import { type CatalogWords, ServerFacts } from "../server-facts";
import { useServerChange } from "../use-server-change";
import { AfterHydration } from "./after-hydration";
import { lifeOf, useServer } from "./use-server";

const OverviewLater = lazy(() => import("./overview-later"));

/**
 * A server at a glance, with what is used most: its facts and power first, then root login, renewal and a new
 * root password (their code loads once the page has hydrated).
 */
export function OverviewSection({ id, words }: { id: number; words: CatalogWords }) {
  const server = useServer(id);
  const actions = useServerChange(id);
  const { live, retained } = lifeOf(server);
  return (
    <>
      <ServerFacts server={server} words={words} />
      <ActionNotice actions={actions} />
      {server.status === "active" && <PowerPanel server={server} actions={actions} />}
      {(live || retained) && (
        <AfterHydration>
          <OverviewLater server={server} actions={actions} />
        </AfterHydration>
      )}
    </>
  );
}
