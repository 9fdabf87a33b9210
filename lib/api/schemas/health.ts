import { z } from "zod";
import { PUSH_STATUSES } from "@/lib/db/types";
import { timestamp } from "./common";

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]).meta({ description: "`ok` when the service can take requests." }),
    version: z.string().meta({ description: "API version.", example: "1.0.0" }),
    mode: z
      .enum(["demo", "production"])
      .meta({ description: "`demo`: simulated payments and provisioning." }),
    database: z.object({
      status: z.enum(["ok", "unreachable"]),
      kind: z.enum(["pglite", "postgres"]),
      checked_at: timestamp().meta({
        description: "When the database last answered a probe (or failed one).",
      }),
    }),
    watchers: z
      .array(
        z.object({
          name: z
            .string()
            .meta({ description: "The watcher, e.g. `utxo:litecoin`, `evm:ethereum`, `demo`." }),
          networks: z.array(z.string()).meta({ description: "The `deposit_network` values it covers." }),
          demo: z.boolean().meta({ description: "True for the simulated watcher of demo mode." }),
          status: z.enum(["ok", "unreachable", "stale", "starting", "behind"]).meta({
            description:
              "`unreachable`: its last poll of the node failed (new top-ups in its coins answer " +
              "`coin_unavailable`); `stale`: no poll for a while; `starting`: not polled yet; `behind`: the " +
              "node answers but is not current: it has too few peers, is catching up, or its newest block is " +
              "far older than the chain's pace (payments to it are credited once it is current again; top-ups " +
              "stay open).",
          }),
          problem: z
            .string()
            .nullable()
            .meta({
              description:
                "What is wrong, in plain words (no node address or raw error: those go to the service's log, " +
                "once each time they change); null when the status is `ok` or `starting`.",
              example: "The node does not accept connections.",
            }),
          tip: z.number().int().nullable().meta({ description: "The node's best block height." }),
          cursor: z.number().int().nullable().meta({ description: "The last block scanned." }),
          lag: z.number().int().nullable().meta({ description: "tip - cursor: blocks not scanned yet." }),
          checked_at: timestamp().nullable().meta({ description: "When it last polled its node." }),
          flagged_payments: z.number().int().meta({
            description:
              "Payments credited and later reorged out of the chain: the operator must check them.",
          }),
          push: z
            .object({
              status: z.enum(PUSH_STATUSES).meta({
                description:
                  "`ok`: the node announces its blocks and each wakes the watcher (its polls come less often); " +
                  "`waiting`: no notice yet from a node that runs a command per block; `degraded`: a block came " +
                  "without its notice (the polls speed up until the next one); `down`: the connection to the " +
                  "node's push is lost (it reconnects; the polls go on).",
              }),
              missed: z.number().int().meta({
                description:
                  "Blocks whose notice never came, found by the polls, since the instance started.",
              }),
              last_notice_at: timestamp().nullable().meta({ description: "When the last notice came." }),
            })
            .nullable()
            .meta({
              description: "The push of the watcher's node (a block notice); null when it is only polled.",
            }),
        }),
      )
      .meta({ description: "Each deposit watcher and the state of the node it reads." }),
    provisioner: z.enum(["simulated", "libvirt"]).meta({
      description:
        "What builds servers: `simulated` (demo, no machine exists) or `libvirt` (real virtual machines).",
    }),
    demo_libvirt: z.boolean().meta({
      description:
        "True when demo mode builds real machines (`ALLOW_DEMO_LIBVIRT=1`, for test machines only): simulated " +
        "payments then fund real servers.",
    }),
    time: timestamp().meta({ description: "The server's clock." }),
    error: z
      .literal("service_unavailable")
      .optional()
      .meta({ description: "Only when status is unavailable." }),
    message: z.string().optional().meta({ description: "Only when status is unavailable." }),
  })
  .meta({ id: "Health" });

export type Health = z.infer<typeof HealthSchema>;
