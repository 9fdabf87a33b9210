"use client";

import type { Server } from "@/lib/dashboard/queries/types";
import { TEXT_STYLES } from "../ui/alert";
import { formatUtc } from "./status-badge";
import { formatBytes, formatPercent } from "./usage-format";

type Traffic = NonNullable<Server["traffic"]>;

/** This period's outbound traffic against the allowance: a bar, the figures, and what the 80 %/100 % marks did. */
export function TrafficBar({ traffic }: { traffic: Traffic }) {
  const shown = Math.min(100, traffic.used_percent);
  const over = traffic.reached_100_percent_at !== null;
  const warned = traffic.reached_80_percent_at !== null;
  return (
    <div className="space-y-2 text-sm" data-testid="traffic">
      <p>
        Outbound traffic {formatUtc(traffic.period_start)} to {formatUtc(traffic.period_end)}:{" "}
        <strong data-testid="traffic-used">
          {formatBytes(traffic.outbound_bytes)} of {formatBytes(traffic.allowance_bytes)}
        </strong>{" "}
        ({formatPercent(traffic.used_percent)}). Inbound, not counted: {formatBytes(traffic.inbound_bytes)}.
      </p>
      <div
        role="progressbar"
        aria-label="Outbound traffic used this period"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(shown)}
        className="h-2 w-full max-w-xl overflow-hidden rounded bg-zinc-200 dark:bg-zinc-700"
      >
        <div
          className={`h-full ${over ? "bg-red-700" : warned ? "bg-amber-600" : "bg-emerald-700"}`}
          style={{ width: `${shown}%` }}
        />
      </div>
      {traffic.slowed_to_mbps !== null ? (
        <p className={TEXT_STYLES.error} data-testid="traffic-slowed">
          The allowance was used up on {formatUtc(traffic.reached_100_percent_at)}: the network is slowed to{" "}
          {traffic.slowed_to_mbps} Mbit/s until {formatUtc(traffic.period_end)}. The server keeps running.
        </p>
      ) : over ? (
        <p className={TEXT_STYLES.error} data-testid="traffic-notice">
          The allowance was used up on {formatUtc(traffic.reached_100_percent_at)}: the network is being
          slowed until {formatUtc(traffic.period_end)}.
        </p>
      ) : warned ? (
        <p className="text-amber-800 dark:text-amber-300" data-testid="traffic-notice">
          80 % of this period's allowance was used on {formatUtc(traffic.reached_80_percent_at)}. Past 100 %
          the network is slowed until {formatUtc(traffic.period_end)}.
        </p>
      ) : null}
    </div>
  );
}
