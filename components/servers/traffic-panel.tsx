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
  const notice = trafficNotice(traffic);
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
      {notice && (
        <p
          className={notice.tone === "error" ? TEXT_STYLES.error : "text-amber-800 dark:text-amber-300"}
          data-testid={notice.testId}
        >
          {notice.text}
        </p>
      )}
    </div>
  );
}

export type TrafficNotice = {
  tone: "error" | "warning";
  testId: "traffic-slowed" | "traffic-notice";
  text: string;
};

/**
 * What the 80 % and 100 % marks did, in words. Past 100 % the slowdown shows only once the host has made it
 * (`slowed_to_mbps`): a host that could not shape yet, or a stopped machine, leaves it pending, and the page
 * says so rather than claim a slower network than the customer has.
 */
export function trafficNotice(traffic: Traffic): TrafficNotice | null {
  const used = formatUtc(traffic.reached_100_percent_at);
  const until = formatUtc(traffic.period_end);
  if (traffic.slowed_to_mbps !== null) {
    return {
      tone: "error",
      testId: "traffic-slowed",
      text:
        `The allowance was used up on ${used}: the network is slowed to ${traffic.slowed_to_mbps} Mbit/s ` +
        `until ${until}. The server keeps running.`,
    };
  }
  if (traffic.reached_100_percent_at !== null) {
    return {
      tone: "error",
      testId: "traffic-notice",
      text:
        `The allowance was used up on ${used}. The slowdown until ${until} is pending: the host has not ` +
        "applied it yet (it is tried again, and a stopped machine is slowed when it starts), so for now the " +
        "network runs at full speed. The server keeps running.",
    };
  }
  if (traffic.reached_80_percent_at !== null) {
    return {
      tone: "warning",
      testId: "traffic-notice",
      text:
        `80 % of this period's allowance was used on ${formatUtc(traffic.reached_80_percent_at)}. Past 100 % ` +
        `the network is slowed until ${until}.`,
    };
  }
  return null;
}
