import { z } from "zod";

const PlanSchema = z
  .object({
    id: z.string().meta({ example: "pup" }),
    name: z.string().meta({ example: "Pup" }),
    tier: z.int().meta({ description: "1 (smallest) to 10 (largest)." }),
    vcpu: z.int(),
    ram_mb: z.int(),
    disk_gb: z.int().meta({ description: "NVMe SSD storage." }),
    disk_type: z.literal("nvme"),
    traffic_tb: z.int().meta({ description: "Monthly outbound traffic included (see `traffic`)." }),
    port_mbps: z.int(),
    ipv4: z.int().meta({ description: "Dedicated IPv4 addresses included." }),
    ipv6: z.string().meta({ example: "/64" }),
    virtualization: z.literal("kvm"),
    base_price_monthly_usd: z.number().meta({ description: "Before the location modifier." }),
  })
  .meta({ id: "Plan" });

const LocationSchema = z
  .object({
    id: z.string().meta({ example: "nl" }),
    city: z.string(),
    country: z.string(),
    country_code: z.string().meta({ description: "ISO 3166-1 alpha-2." }),
    price_modifier: z.number().meta({ description: "Multiplies the plan's base price.", example: 1.1 }),
  })
  .meta({ id: "Location" });

const OsSchema = z
  .object({
    id: z.string().meta({ example: "debian-12" }),
    name: z.string(),
    family: z.string(),
    version: z.string(),
    available: z.boolean().meta({
      description: "False when this deployment has no image for it: an order then gets 409 os_unavailable.",
    }),
  })
  .meta({ id: "OperatingSystem" });

const PriceSchema = z
  .object({
    plan: z.string(),
    location: z.string(),
    monthly_usd: z.number(),
    annual_usd: z.number().meta({ description: "10 x monthly_usd." }),
  })
  .meta({ id: "Price" });

const CoinSchema = z
  .object({
    code: z.string().meta({ example: "BTC" }),
    name: z.string(),
    network: z.string(),
    method: z.enum(["deposit", "x402"]).meta({
      description: "`deposit`: pay a deposit address; `x402`: sign a USDC authorization (HTTP 402 flow).",
    }),
  })
  .meta({ id: "Coin" });

export const CatalogSchema = z
  .object({
    currency: z.literal("USD"),
    plans: z.array(PlanSchema),
    locations: z.array(LocationSchema),
    os: z.array(OsSchema),
    pricing: z.object({
      rule: z.string(),
      cycles: z.array(z.enum(["monthly", "annual"])),
      annual_months_charged: z.int().meta({ description: "An annual cycle costs this many monthly prices." }),
      rounding: z.string(),
      prices: z.array(PriceSchema).meta({ description: "Every plan x location, already computed." }),
    }),
    snapshots: z
      .object({
        per_server: z.int().meta({ description: "How many snapshots each server may keep." }),
        price_usd: z.literal(0).meta({
          description: "Snapshots cost nothing: they are part of the plan's price, like its disk.",
        }),
        kept_after_termination_days: z.int().meta({
          description:
            "How long a server terminated because its period lapsed keeps its last disk and snapshots: renewing " +
            "it in that time brings it back. 0: nothing is kept.",
        }),
        rescue_available: z.boolean().meta({ description: "Whether this deployment has the rescue system." }),
      })
      .meta({
        description:
          "Snapshots of a server's disk (taken on request and before a reinstall) and rescue mode: see the " +
          "Snapshots and rescue operations.",
      }),
    traffic: z
      .object({
        counted: z.literal("outbound").meta({ description: "Only bytes the server sends count." }),
        period: z.string().meta({ description: "What one allowance covers." }),
        notices_percent: z
          .array(z.int())
          .meta({ description: "Shares of the allowance at which the server records a notice." }),
        over_allowance_mbps: z.int().meta({
          description:
            "Past the allowance the network is slowed to this speed both ways until the next period.",
        }),
        over_allowance: z.string(),
      })
      .meta({ description: "How plans' `traffic_tb` is counted and what happens past it." }),
    payment: z.object({
      currency: z.literal("USD"),
      topup_min_usd: z.number(),
      topup_max_usd: z.number(),
      default_coin: z.string().meta({ description: "Coin used by POST /topups when `coin` is omitted." }),
      coins: z.array(CoinSchema),
      refundable: z.literal(false).meta({ description: "Top-ups are on-chain and non-refundable." }),
    }),
  })
  .meta({ id: "Catalog" });

export type CatalogBody = z.infer<typeof CatalogSchema>;
