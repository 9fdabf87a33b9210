import { z } from "zod";
import { timestamp } from "./common";

const milliseconds = (what: string) =>
  z
    .number()
    .nullable()
    .meta({ description: `${what}, in milliseconds; null when nothing was measured.` });

export const StatusTimingSchema = z
  .object({
    n: z.number().int().meta({ description: "How many times were measured." }),
    p50_ms: milliseconds("The median"),
    p95_ms: milliseconds("The 95th percentile (nearest rank)"),
    p99_ms: milliseconds("The 99th percentile (nearest rank)"),
  })
  .meta({
    id: "StatusTiming",
    description: "Percentiles of measured times, nearest-rank: each was measured.",
  });

export const StatusOutcomesSchema = z
  .object({
    total: z.number().int().meta({ description: "How many ended (succeeded or failed for good)." }),
    succeeded: z.number().int(),
    success_rate: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .meta({ description: "succeeded / total, 0 to 1; null when total is 0.", example: 0.98 }),
  })
  .meta({ id: "StatusOutcomes" });

/** The same figures over the last 24 hours and the last 7 days. */
const windows = <T extends z.ZodType>(schema: T) =>
  z
    .object({ last_24h: schema, last_7d: schema })
    .meta({ description: "The last 24 hours and the last 7 days." });

export const StateSchema = z.enum(["up", "degraded", "down"]).meta({
  id: "StatusState",
  description: "See `methods.hosts` and `methods.watchers` for what each means.",
});

/** Hourly p50 and p95 over the last 168 hours, aligned with `series.hour_starts`. */
const hourly = (what: string) =>
  z
    .object({
      p50_ms: z.array(z.number().nullable()),
      p95_ms: z.array(z.number().nullable()),
    })
    .meta({ description: `${what}: hourly p50 and p95 (ms), null for an hour with nothing measured.` });

export const StatusSchema = z
  .object({
    generated_at: timestamp().meta({ description: "When these figures were computed." }),
    refresh_seconds: z
      .number()
      .int()
      .meta({ description: "They are computed again at most this often (STATUS_REFRESH_SECONDS)." }),
    mode: z
      .enum(["demo", "production"])
      .meta({ description: "`demo`: simulated payments and, unless stated, simulated machines." }),
    provisioner: z
      .enum(["simulated", "libvirt"])
      .meta({ description: "What builds servers: `simulated` (no machine exists) or `libvirt`." }),
    /** The service as a whole: down when no location has a host up, degraded when anything is not up. */
    state: StateSchema,
    orders: z
      .array(
        z.object({
          location: z.string().meta({ description: "Catalog location id.", example: "nl" }),
          location_name: z.string().meta({ example: "Amsterdam, Netherlands" }),
          os: z.string().meta({ description: "Catalog image id, as ordered.", example: "debian-13" }),
          os_name: z.string().meta({ example: "Debian 13 (Trixie)" }),
          windows: windows(
            z.object({
              orders: StatusOutcomesSchema,
              to_active: StatusTimingSchema,
              to_ssh: StatusTimingSchema,
            }),
          ),
        }),
      )
      .meta({ description: "Per location and image with an order whose build ended in the last 7 days." }),
    credits: z
      .array(
        z.object({
          coin: z.string().meta({ example: "BTC" }),
          coin_name: z.string().meta({ example: "Bitcoin" }),
          windows: windows(StatusTimingSchema),
        }),
      )
      .meta({ description: "Per coin with a deposit credited in the last 7 days." }),
    console: windows(
      z.object({
        sessions: StatusOutcomesSchema,
        to_first_byte: StatusTimingSchema,
      }),
    ),
    webhooks: windows(
      z.object({
        deliveries: StatusOutcomesSchema,
        to_delivery: StatusTimingSchema,
      }),
    ),
    hosts: z
      .array(
        z.object({
          location: z.string(),
          location_name: z.string(),
          total: z.number().int(),
          up: z.number().int(),
          degraded: z.number().int(),
          down: z.number().int(),
          state: StateSchema,
        }),
      )
      .meta({
        description: "Hosts counted per location (none is named); empty with the simulated provisioner.",
      }),
    watchers: z
      .array(
        z.object({
          coins: z
            .array(z.string())
            .meta({ description: "The coins whose deposits it watches.", example: ["BTC"] }),
          simulated: z.boolean().meta({ description: "The demo's simulated watcher: no chain behind it." }),
          state: StateSchema,
        }),
      )
      .meta({ description: "Each deposit watcher, by the coins it watches (no node is named)." }),
    series: z
      .object({
        hour_starts: z
          .array(z.number().int())
          .meta({ description: "Start of each hour, in Unix seconds: the last 168, the current one last." }),
        to_active: hourly("Order -> active"),
        to_credit: hourly("Confirming block first seen -> credit, every coin"),
        to_first_byte: hourly("Console ticket -> first byte"),
        to_delivery: hourly("Webhook commit -> delivery"),
      })
      .meta({ description: "What the page's charts draw." }),
    methods: z
      .object({
        overview: z.string(),
        percentiles: z.string(),
        orders: z.string(),
        ssh: z.string(),
        credits: z.string(),
        console: z.string(),
        webhooks: z.string(),
        hosts: z.string(),
        watchers: z.string(),
      })
      .meta({ description: "How each figure is measured, in the words the page shows beside it." }),
  })
  .meta({
    id: "Status",
    description:
      "The public status page's figures. `state`: the service as a whole, `down` when no location has a host " +
      "up, `degraded` when a location or a deposit watcher is not up, else `up`. Times: `to_active` and " +
      "`to_ssh` run from the accepted order, `to_credit` from the chain's time of the block that completed " +
      "a deposit's confirmations to its credit, `to_first_byte` from a console ticket's issue, `to_delivery` from a webhook event's " +
      "commit; `methods` says exactly how each is measured.",
  });

export type Status = z.infer<typeof StatusSchema>;
export type StatusTiming = z.infer<typeof StatusTimingSchema>;
export type StatusOutcomes = z.infer<typeof StatusOutcomesSchema>;
export type StatusState = z.infer<typeof StateSchema>;
