import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { CYCLES } from "@/lib/catalog/catalog";
import { timestamp } from "./common";
import { CreateServerRequestSchema } from "./servers";

export const ResizeServerRequestSchema = z
  .strictObject({
    plan: CreateServerRequestSchema.shape.plan.meta({
      description: "The plan to move to, larger or smaller, from the catalog.",
      example: "fox",
    }),
    grow_disk: z
      .boolean()
      .default(false)
      .meta({
        description:
          "Default `false`: CPU and memory change, the disk keeps its size, and every plan with at least that much " +
          "disk stays open (a later downgrade included). `true`: the disk grows to the plan's (it must be " +
          "larger), a snapshot of it is kept first, and it can never shrink again: plans with less disk are " +
          "closed to the server from then on.",
      }),
    dry_run: z
      .boolean()
      .default(false)
      .meta({
        description:
          "`true`: nothing changes; the answer is a quote (the charge or credit, the renewal price, the downtime " +
          "expected, what stays open) whose price holds for 10 minutes when its `quote_id` is sent back.",
      }),
    quote_id: z
      .string()
      .max(1024)
      .optional()
      .meta({
        description:
          "A dry run's `quote_id`: the resize is charged (or credited) exactly what was quoted, if sent within 10 " +
          "minutes, for the same plan and `grow_disk`, while the server's plan and expiry are unchanged.",
      }),
  })
  .meta({ id: "ResizeServerRequest" });

export const ResizeServerBody = requestBody(ResizeServerRequestSchema, {
  plan: "invalid_plan",
  grow_disk: "invalid_grow_disk",
  dry_run: "invalid_dry_run",
  quote_id: "invalid_quote",
});

const usd = (description: string) => z.number().meta({ description });

/** What a resize costs and gives, the same in a quote and in the resize itself. */
const terms = {
  from_plan: z.string().meta({ example: "pup" }),
  to_plan: z.string().meta({ example: "fox" }),
  direction: z.enum(["upgrade", "downgrade"]).meta({
    description: "`upgrade`: the new plan costs more per cycle (charged now); `downgrade`: less (credited).",
  }),
  grow_disk: z.boolean(),
  memory_mb: z.int().meta({ description: "Memory after the resize (this deployment's caps applied)." }),
  vcpus: z.int(),
  disk_gb: z.int().meta({ description: "Disk after the resize: the same as before unless `grow_disk`." }),
  charge_usd: usd(
    "Debited from the balance when the resize is accepted (an upgrade): the difference of the two plans' " +
      "prices for the paid time left, per second, rounded up to the cent. 0 for a downgrade.",
  ),
  credit_usd: usd(
    "Credited to the balance once the machine runs on its new size (a downgrade): the same difference, " +
      "rounded down to the cent. 0 for an upgrade.",
  ),
  renewal_price_usd: usd("What each renewal costs from now on: the new plan's price for the server's cycle."),
  cycle: z.enum(CYCLES),
  expires_at: timestamp().meta({ description: "The end of the paid period: a resize never moves it." }),
  priced_at: timestamp().meta({ description: "The moment the paid time left was counted from." }),
  seconds_left: z.int().meta({ description: "The paid time left at `priced_at`, in whole seconds." }),
  period_seconds: z.int().meta({
    description:
      "The length of the billing period that time is in (its calendar month or year), in seconds: the charge is " +
      "(new price - old price) x seconds_left / period_seconds.",
  }),
  downtime_estimate_seconds: z.int().meta({
    description:
      "How long the machine is expected to be unreachable (shutdown, the new size, boot until SSH answers): the " +
      "median of the last resizes measured on its host, or a default until there are some.",
  }),
  downgrade_possible: z.boolean().meta({
    description:
      "Whether a cheaper plan than `to_plan` can still take the server afterwards: false once the disk has " +
      "grown past every cheaper plan's (disks never shrink).",
  }),
  smallest_plan_after: z.string().meta({
    description: "The cheapest plan whose disk can take the server's afterwards.",
    example: "pup",
  }),
};

export const ResizeQuoteSchema = z
  .object({
    dry_run: z.literal(true),
    quote_id: z.string().meta({
      description: "Send back as `quote_id` (with the same plan and `grow_disk`) to resize at this price.",
    }),
    quote_expires_at: timestamp().meta({ description: "Until when the quoted price holds (10 minutes)." }),
    ...terms,
  })
  .meta({ id: "ResizeQuote", description: "What a resize would cost and change; nothing was changed." });

export const RESIZE_STATES = ["pending", "running", "reverting", "done", "failed"] as const;

export const ResizeSchema = z
  .object({
    id: z.int().meta({ example: 12 }),
    server_id: z.int().meta({ example: 311 }),
    state: z.enum(RESIZE_STATES).meta({
      description:
        "`pending` until the host takes it; `running` while the machine is shut down, changed and started; " +
        "`done` once SSH answers on the new size (a downgrade's credit is then paid); after a failure, " +
        "`reverting` while the old size is put back, then `failed` (an upgrade's charge refunded).",
    }),
    ...terms,
    snapshot_id: z.int().nullable().meta({
      description: "The snapshot of the disk at rest taken before it grew (`grow_disk`); null otherwise.",
    }),
    downtime_seconds: z
      .number()
      .nullable()
      .meta({
        description:
          "Measured: from the shutdown request until SSH answered on the new size, to the tenth of a second. Null " +
          "until done, and for a machine that was stopped (it is left stopped).",
      }),
    failure_reason: z.string().nullable(),
    created_at: timestamp(),
    finished_at: timestamp().nullable(),
  })
  .meta({ id: "Resize" });

export const ResizeListSchema = z
  .object({ resizes: z.array(ResizeSchema).meta({ description: "Newest first, the last 20." }) })
  .meta({ id: "ResizeList" });

export type ResizeServerRequest = z.infer<typeof ResizeServerRequestSchema>;
export type ResizeQuote = z.infer<typeof ResizeQuoteSchema>;
export type Resize = z.infer<typeof ResizeSchema>;
