"use client";

import type { Server } from "@/lib/dashboard/queries/types";
import { Button } from "../ui/button";
import { Panel } from "../ui/panel";
import type { ServerActions } from "./use-server-change";

const POWER_ACTIONS = ["start", "stop", "reboot"] as const;
const capitalized = (word: string) => `${word[0]?.toUpperCase()}${word.slice(1)}`;

/** Start, stop and reboot; each offered only when the power state allows it. */
export function PowerPanel({ server, actions }: { server: Server; actions: ServerActions }) {
  return (
    <Panel id="power" title="Power">
      <div className="flex flex-wrap gap-2">
        {POWER_ACTIONS.map((action) => (
          <Button
            key={action}
            disabled={
              actions.pending ||
              (action === "start" && server.power_state === "running") ||
              (action !== "start" && server.power_state === "stopped")
            }
            onClick={() =>
              actions.act(`${capitalized(action)} sent.`, {
                path: "/actions",
                method: "POST",
                body: { action },
              })
            }
          >
            {capitalized(action)}
          </Button>
        ))}
      </div>
    </Panel>
  );
}
