"use client";

import { lazy } from "react";
import { SnapshotsPanel } from "../snapshots-panel";
import { AfterHydration } from "./after-hydration";
import { SectionUnavailable } from "./section-unavailable";
import { lifeOf, useServer } from "./use-server";

/** Rescue mode is used now and then: its code loads once the page has hydrated. */
const RescuePanel = lazy(() => import("../rescue-panel").then((module) => ({ default: module.RescuePanel })));

/** Copies of the disk (taken, restored, deleted) and rescue mode: the ways back when something went wrong. */
export function SnapshotsSection({ id }: { id: number }) {
  const server = useServer(id);
  const { live, retained } = lifeOf(server);
  if (!live && !retained) {
    return <SectionUnavailable>This server is terminated: its snapshots went with it.</SectionUnavailable>;
  }
  return (
    <>
      <SnapshotsPanel server={server} />
      {server.status === "active" && (
        <AfterHydration>
          <RescuePanel server={server} />
        </AfterHydration>
      )}
    </>
  );
}
