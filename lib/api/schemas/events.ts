/**
 * The events notifications carry: each is the JSON body of a webhook (Standard Webhooks: `type`, `timestamp`,
 * `data`), and each has a schema here, published in the OpenAPI document under `webhooks`. A webhook's
 * `webhook-id` header is the event's id: it is the same on every retry and redelivery.
 */
import { z } from "zod";
import { type EventType, SNAPSHOT_KINDS } from "@/lib/db/types";
import {
  EVENT_DESCRIPTIONS,
  HELD_OWNER_MAY,
  HELD_OWNER_MAY_NOT,
  TEST_EVENT_TYPE,
} from "@/lib/notifications/types";
import { timestamp } from "./common";

const usd = (description: string) => z.number().meta({ description });

export const EventServerSchema = z
  .object({
    id: z.int().meta({ example: 311 }),
    hostname: z.string().meta({ example: "fox-nl-k3m9qa" }),
    plan: z.string().meta({ example: "fox" }),
    location: z.string().meta({ example: "nl" }),
    ip: z.string().nullable(),
    status: z.enum(["provisioning", "active", "suspended", "terminated"]),
    expires_at: timestamp().meta({ description: "End of the paid period." }),
    auto_renew: z.boolean(),
  })
  .meta({ id: "EventServer", description: "The server an event is about, as it stood then." });

export const EventTopupSchema = z
  .object({
    ref: z.string().meta({ example: "tp_7k2m9q4xw3c8r5tz6yb1dqe3" }),
    coin: z.string().meta({ example: "BTC" }),
    amount_usd: usd("The USD amount asked for."),
    status: z.enum(["pending", "completed", "expired", "cancelled"]),
    credited_usd: usd("Credited to the balance by this top-up so far."),
  })
  .meta({ id: "EventTopup", description: "The top-up an event is about, as it stood then." });

const EventSnapshotSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    kind: z.enum(SNAPSHOT_KINDS),
  })
  .meta({ id: "EventSnapshot" });

/** The envelope of one event type, with its data. */
function eventSchema<T extends z.ZodRawShape>(type: EventType, id: string, data: T) {
  return z
    .object({
      type: z.literal(type),
      timestamp: timestamp().meta({ description: "When the fact happened (the service's time)." }),
      data: z.object(data),
    })
    .meta({ id, description: EVENT_DESCRIPTIONS[type] });
}

export const EVENT_SCHEMAS = {
  "topup.payment_seen": eventSchema("topup.payment_seen", "TopupPaymentSeenEvent", {
    topup: EventTopupSchema,
    payment: z.object({
      tx_hash: z.string(),
      amount: z.string().meta({ description: "In the deposit coin.", example: "0.00052" }),
      confirmations: z.int(),
      confirmations_required: z.int(),
    }),
  }),
  "topup.credited": eventSchema("topup.credited", "TopupCreditedEvent", {
    kind: z.enum(["partial", "completed", "late"]).meta({
      description:
        "`completed`: this credit completed the asked amount. `partial`: less than asked has arrived so far " +
        "(or the top-up expired with part of it paid). `late`: paid to a top-up already closed (completed, " +
        "expired or cancelled).",
    }),
    credited_usd: usd("What this credit added to the balance."),
    balance_usd: usd("The balance right after it."),
    topup: EventTopupSchema,
  }),
  "server.active": eventSchema("server.active", "ServerActiveEvent", {
    reason: z.enum(["provisioned", "reinstalled", "restored", "revived", "resumed"]).meta({
      description:
        "`provisioned`: built after its order. `reinstalled`, `restored`: its disk was rewritten. `revived`: a " +
        "lapsed server came back on its kept disk. `resumed`: a suspended server was renewed and started.",
    }),
    server: EventServerSchema,
  }),
  "server.build_failed": eventSchema("server.build_failed", "ServerBuildFailedEvent", {
    reason: z.string().meta({ description: "What went wrong, in words." }),
    refunded_usd: usd("Refunded to the balance."),
    balance_usd: usd("The balance after the refund."),
    server: EventServerSchema,
  }),
  "server.expiring": eventSchema("server.expiring", "ServerExpiringEvent", {
    expires_at: timestamp(),
    lead_hours: z
      .int()
      .meta({ description: "The warning's lead time (NOTIFY_EXPIRY_WARNING_HOURS).", example: 72 }),
    why: z.enum(["auto_renew_off", "balance_short"]).meta({
      description:
        "Why it will not renew by itself: automatic renewal is off, or the balance does not cover it.",
    }),
    price_usd: usd("Price of one more period."),
    balance_usd: usd("The balance now."),
    suspends_at: timestamp().meta({ description: "Unless renewed by then, it is stopped at expiry." }),
    server: EventServerSchema,
  }),
  "server.suspended": eventSchema("server.suspended", "ServerSuspendedEvent", {
    terminates_at: timestamp().meta({ description: "When it is terminated unless renewed first." }),
    server: EventServerSchema,
  }),
  "server.held": eventSchema("server.held", "ServerHeldEvent", {
    reason: z.string().meta({
      description: "The operator's words, as `status_reason` shows them after `Suspended by the operator: `.",
      example: "Outgoing SSH scans reported by abuse@example.net",
    }),
    scope: z.enum(["server", "account"]).meta({
      description:
        "`server`: this server was suspended. `account`: the whole account was (no new orders either).",
    }),
    period_paused: z.boolean().meta({
      description:
        "True: the paid period waits while the hold lasts (the time held is added to `expires_at` when it is " +
        "lifted) and the server cannot lapse meanwhile. False: it runs on and can lapse as any other.",
    }),
    owner_may: z.array(z.enum(HELD_OWNER_MAY)).meta({
      description:
        "What the owner may still do: see the server, renew it (the renewal extends from its expiry, never from " +
        "now, and the server stays held), turn automatic renewal on or off, top up.",
    }),
    refused_until_lifted: z.array(z.enum(HELD_OWNER_MAY_NOT)).meta({
      description:
        "What is refused until the operator lifts the hold: power actions, the console, reinstalls, restores, " +
        "rescue mode and new snapshots (`409 server_not_active`); terminating it and deleting its snapshots " +
        "(`409 server_held`), so the evidence stays.",
    }),
    server: EventServerSchema,
  }),
  "server.released": eventSchema("server.released", "ServerReleasedEvent", {
    held_since: timestamp().meta({ description: "When the hold began." }),
    period_extended_seconds: z.int().meta({
      description: "Added to `expires_at`: the time held, when the hold paused the period; else 0.",
    }),
    status_after: z.enum(["provisioning", "active", "suspended", "terminated"]).meta({
      description:
        "`active`: back as it was (started again if it ran) while its period lasts. `suspended`: its period " +
        "lapsed meanwhile: renew it. `provisioning`: it is still being built. `terminated`: it ended during the " +
        "hold (its period ran on and lapsed).",
    }),
    server: EventServerSchema,
  }),
  "server.terminated": eventSchema("server.terminated", "ServerTerminatedEvent", {
    reason: z.enum(["owner", "lapsed"]).meta({
      description: "`owner`: terminated on request. `lapsed`: its period ended unpaid past the grace days.",
    }),
    disk_kept_until: timestamp().nullable().meta({
      description: "A lapsed server's last disk is kept until then; renewing before brings it back.",
    }),
    server: EventServerSchema,
  }),
  "account.balance_low": eventSchema("account.balance_low", "AccountBalanceLowEvent", {
    balance_usd: usd("The balance now."),
    needed_usd: usd("What the renewals below cost together."),
    shortfall_usd: usd("needed_usd minus balance_usd: what to top up."),
    window_days: z.literal(7),
    renewals: z
      .array(z.object({ server: EventServerSchema, price_usd: z.number(), renews_at: timestamp() }))
      .meta({
        description: "Servers with automatic renewal whose period ends in the window, soonest first.",
      }),
  }),
  "snapshot.taken": eventSchema("snapshot.taken", "SnapshotTakenEvent", {
    snapshot: EventSnapshotSchema,
    server: EventServerSchema,
  }),
  "snapshot.restored": eventSchema("snapshot.restored", "SnapshotRestoredEvent", {
    snapshot: EventSnapshotSchema.nullable(),
    server: EventServerSchema,
  }),
  "snapshot.failed": eventSchema("snapshot.failed", "SnapshotFailedEvent", {
    operation: z.enum(["snapshot", "restore"]),
    reason: z.string(),
    snapshot: EventSnapshotSchema.nullable(),
    server: EventServerSchema,
  }),
  "rescue.entered": eventSchema("rescue.entered", "RescueEnteredEvent", {
    host_key_fingerprint: z
      .string()
      .nullable()
      .meta({ description: "The rescue system's own SSH host key." }),
    server: EventServerSchema,
  }),
  "rescue.left": eventSchema("rescue.left", "RescueLeftEvent", { server: EventServerSchema }),
  "console.opened": eventSchema("console.opened", "ConsoleOpenedEvent", {
    session_id: z.int(),
    opened_from: z.string().meta({ description: "The client address the console was opened from." }),
    server: EventServerSchema,
  }),
  "traffic.threshold_reached": eventSchema("traffic.threshold_reached", "TrafficThresholdReachedEvent", {
    percent: z.union([z.literal(80), z.literal(100)]),
    allowance_bytes: z.int(),
    outbound_bytes: z.int(),
    period_start: timestamp(),
    period_end: timestamp(),
    slowed_to_mbps: z
      .int()
      .nullable()
      .meta({ description: "Past 100 % the network is slowed to this until the period ends; null at 80 %." }),
    server: EventServerSchema,
  }),
} satisfies Record<EventType, z.ZodType>;

export const TestEventSchema = z
  .object({
    type: z.literal(TEST_EVENT_TYPE),
    timestamp: timestamp(),
    data: z.object({ webhook_id: z.int(), message: z.string() }),
  })
  .meta({ id: "WebhookTestEvent", description: "Sent by POST /webhooks/{id}/test to that endpoint only." });

export type EventData<T extends EventType> = z.infer<(typeof EVENT_SCHEMAS)[T]>["data"];
export type EventServer = z.infer<typeof EventServerSchema>;
export type EventTopup = z.infer<typeof EventTopupSchema>;
