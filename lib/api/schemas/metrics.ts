import { z } from "zod";
import { TRAFFIC_POLICY } from "@/lib/catalog/catalog";
import { METRIC_PERIODS } from "@/lib/servers/metrics/tiers";
import { timestamp } from "./common";

export const TrafficSchema = z
  .object({
    period_start: timestamp().meta({ description: "Start of this traffic period." }),
    period_end: timestamp().meta({ description: "When the next period starts (and a slowdown ends)." }),
    allowance_bytes: z.int().meta({ description: "Outbound bytes included per period (the plan's)." }),
    outbound_bytes: z.int().meta({ description: "Bytes the server sent this period: what is counted." }),
    inbound_bytes: z.int().meta({ description: "Bytes the server received this period: not counted." }),
    used_percent: z.number().meta({ description: "outbound_bytes / allowance_bytes x 100, one decimal." }),
    reached_80_percent_at: timestamp()
      .nullable()
      .meta({ description: "When this period's outbound traffic reached 80 % of the allowance." }),
    reached_100_percent_at: timestamp()
      .nullable()
      .meta({ description: "When it reached the allowance: the network is then slowed until period_end." }),
    slowed_to_mbps: z
      .int()
      .nullable()
      .meta({
        description: `The network's speed both ways while slowed (${TRAFFIC_POLICY.slowedMbps}), once the host has applied it; null when not slowed.`,
      }),
  })
  .meta({
    id: "ServerTraffic",
    description:
      "This period's traffic against the plan's allowance. Periods are the calendar months of the paid period " +
      "(boundaries at the expiry's day and time, so an annual cycle has twelve). Only outbound traffic counts. " +
      `Past the allowance the network is slowed to ${TRAFFIC_POLICY.slowedMbps} Mbit/s both ways until the ` +
      "next period (never suspended). Figures lag by up to one and a half sampling intervals " +
      "(METRICS_INTERVAL_SECONDS; at most one interval and 10 s).",
  });

export type Traffic = z.infer<typeof TrafficSchema>;

export const MetricsQuerySchema = z.object({
  period: z
    .enum(METRIC_PERIODS)
    .default("24h")
    .meta({ description: "How far back: 1h (1-minute points), 24h (5-minute), 7d and 30d (hourly)." }),
});

const rates = (description: string) =>
  z.array(z.number().nullable()).meta({ description: `${description}; null where nothing was measured.` });

export const ServerMetricsSchema = z
  .object({
    server_id: z.int(),
    period: z.enum(METRIC_PERIODS),
    demo: z.boolean().meta({
      description: "True for a simulated server: generated demo series, not a machine's readings.",
    }),
    resolution_seconds: z.int().meta({ description: "Width of each point's bucket: 60, 300 or 3600." }),
    from: timestamp().meta({ description: "Start of the first bucket." }),
    to: timestamp().meta({ description: "End of the last bucket (the current one, still filling)." }),
    timestamps: z.array(z.int()).meta({ description: "Start of each bucket, Unix seconds, oldest first." }),
    series: z.object({
      cpu_percent: rates("CPU used, percent of the server's vCPUs together (0-100)"),
      memory_used_bytes: rates(
        "Memory in use inside the guest (its balloon driver's figures); null where the guest does not report it",
      ),
      network_in_bytes_per_second: rates("Bytes per second the server received"),
      network_out_bytes_per_second: rates("Bytes per second the server sent"),
      disk_read_bytes_per_second: rates("Bytes per second read from its disk"),
      disk_write_bytes_per_second: rates("Bytes per second written to its disk"),
    }),
    totals: z
      .object({
        network_in_bytes: z.int(),
        network_out_bytes: z.int(),
        disk_read_bytes: z.int(),
        disk_write_bytes: z.int(),
      })
      .meta({ description: "Sums over the period's points." }),
  })
  .meta({
    id: "ServerMetrics",
    description:
      "Usage over the period, one point per bucket, each an average over the time the machine was measured in " +
      "it. Every array of `series` has one value per timestamp.",
  });

export type ServerMetrics = z.infer<typeof ServerMetricsSchema>;
