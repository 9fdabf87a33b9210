"use client";

import { UsagePanel } from "../usage-panel";
import { SectionUnavailable } from "./section-unavailable";
import { useServer } from "./use-server";

/** Traffic this period and the usage graphs (the chart library loads once they near the screen). */
export function UsageSection({ id }: { id: number }) {
  const server = useServer(id);
  if (server.status !== "active" && server.status !== "suspended") {
    return (
      <SectionUnavailable>
        Usage is shown while the server is active or suspended; a terminated server has none.
      </SectionUnavailable>
    );
  }
  return <UsagePanel server={server} />;
}
