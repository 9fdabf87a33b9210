"use client";

import { RescuePanel } from "../rescue-panel";
import { SnapshotsPanel } from "../snapshots-panel";
import { SectionUnavailable } from "./section-unavailable";
import { lifeOf, useServer } from "./use-server";

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
      {server.status === "active" && <RescuePanel server={server} />}
    </>
  );
}
