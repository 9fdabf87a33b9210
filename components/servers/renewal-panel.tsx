"use client";

import { useRef } from "react";
import { newIdempotencyKey } from "@/lib/dashboard/queries/idempotency";
import type { Server } from "@/lib/dashboard/queries/types";
import { formatApiUsd } from "@/lib/util/cents";
import { Button } from "../ui/button";
import { Panel } from "../ui/panel";
import { ExpiryWarnings } from "./expiry-warnings";
import type { ServerActions } from "./use-server-change";

/**
 * Renews for one cycle from the balance (once per click, whatever the retries), and turns auto-renew on or off.
 * A lapsed server whose disk is still kept is renewed here too: it comes back on that disk.
 */
export function RenewalPanel({ server, actions }: { server: Server; actions: ServerActions }) {
  const renewKey = useRef(newIdempotencyKey());
  return (
    <Panel id="billing" title="Renewal">
      <div className="flex flex-wrap items-center gap-4">
        <Button
          disabled={actions.pending}
          onClick={() =>
            actions.act(
              "Renewed.",
              { path: "/renew", method: "POST", headers: { "idempotency-key": renewKey.current } },
              () => {
                renewKey.current = newIdempotencyKey();
              },
            )
          }
        >
          Renew for one {server.cycle === "annual" ? "year" : "month"} ({formatApiUsd(server.price_usd)})
        </Button>
        {/* A lapsed server can only be renewed by hand, to bring it back. */}
        {server.status !== "terminated" && (
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={server.auto_renew}
              disabled={actions.pending}
              onChange={(e) =>
                actions.act(e.target.checked ? "Automatic renewal is on." : "Automatic renewal is off.", {
                  path: "",
                  method: "PATCH",
                  body: { auto_renew: e.target.checked },
                })
              }
            />
            Renew automatically from the balance
          </label>
        )}
      </div>
      {server.status !== "terminated" && <ExpiryWarnings serverId={server.id} />}
    </Panel>
  );
}
