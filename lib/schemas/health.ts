import { z } from "zod";
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
    provisioner: z.enum(["simulated", "libvirt"]).meta({
      description:
        "What builds servers: `simulated` (demo, no machine exists) or `libvirt` (real virtual machines).",
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
