import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { EVENT_TYPES } from "@/lib/db/types";
import { MAX_URL_LENGTH } from "@/lib/notifications/types";
import { nextCursorField, timestamp } from "./common";

/** Endpoints an account may have, webhooks and push topics together. */
export const MAX_ENDPOINTS = 10;
export const DELIVERY_PAGE_DEFAULT = 20;
/** A rotated-out secret keeps signing for this long by default (and at most MAX). */
export const PREVIOUS_SECRET_DEFAULT_HOURS = 24;
export const PREVIOUS_SECRET_MAX_HOURS = 168;

const eventList = z
  .array(z.enum(EVENT_TYPES))
  .min(1)
  .max(EVENT_TYPES.length)
  .meta({ description: "The event types sent to it.", example: ["server.active", "server.expiring"] });

export const WebhookSchema = z
  .object({
    id: z.int().meta({ example: 4 }),
    kind: z.enum(["webhook", "ntfy"]).meta({
      description:
        "`webhook`: a JSON POST signed after the Standard Webhooks specification. `ntfy`: a push to an " +
        "ntfy topic URL (a POST with a title and a message), for phones without a server of your own.",
    }),
    url: z.string().meta({ example: "https://hooks.example.com/vps" }),
    description: z.string().nullable(),
    events: z.array(z.enum(EVENT_TYPES)),
    enabled: z.boolean().meta({ description: "False when turned off, or disabled after failing for days." }),
    disabled_at: timestamp().nullable(),
    disabled_reason: z.string().nullable().meta({
      description:
        "Why it is off: turned off by its owner, or every delivery failed for days (and since when).",
    }),
    failing_since: timestamp().nullable().meta({
      description: "The first failed attempt since the last success; null while deliveries succeed.",
    }),
    last_success_at: timestamp().nullable(),
    has_token: z.boolean().meta({ description: "ntfy: an access token is set (it is never shown)." }),
    previous_secret_expires_at: timestamp()
      .nullable()
      .meta({ description: "After a rotation: until then the previous secret signs every delivery too." }),
    created_at: timestamp(),
  })
  .meta({ id: "Webhook", description: "A notification endpoint: a signed webhook or an ntfy push topic." });

export const WebhookCreatedSchema = WebhookSchema.extend({
  secret: z
    .string()
    .nullable()
    .meta({
      description:
        "The signing secret (`whsec_` + base64), shown only in this response; null for ntfy topics. Verify " +
        "deliveries with it (any Standard Webhooks library).",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
}).meta({ id: "WebhookCreated" });

export const WebhookListSchema = z
  .object({ webhooks: z.array(WebhookSchema).meta({ description: "Oldest first." }) })
  .meta({ id: "WebhookList" });

export const CreateWebhookRequestSchema = z
  .strictObject({
    url: z.string().max(MAX_URL_LENGTH).meta({
      description: "Where to send: https in production; never a private, loopback or link-local address.",
    }),
    kind: z.enum(["webhook", "ntfy"]).default("webhook"),
    events: eventList.optional().meta({ description: "The event types to send; all of them when left out." }),
    description: z.string().trim().max(200).optional(),
    ntfy_token: z
      .string()
      .regex(/^[\x21-\x7e]{1,200}$/)
      .optional()
      .meta({ description: "ntfy only: an access token, sent as `Authorization: Bearer`." }),
  })
  .meta({ id: "CreateWebhookRequest" });

export const UpdateWebhookRequestSchema = z
  .strictObject({
    url: z.string().max(MAX_URL_LENGTH).optional(),
    events: eventList.optional(),
    description: z.string().trim().max(200).nullable().optional(),
    enabled: z.boolean().optional().meta({
      description:
        "false turns it off (queued deliveries fail); true turns it on again, also after it was disabled.",
    }),
    ntfy_token: z
      .string()
      .regex(/^[\x21-\x7e]{1,200}$/)
      .nullable()
      .optional(),
  })
  .meta({ id: "UpdateWebhookRequest" });

export const RotateSecretRequestSchema = z
  .strictObject({
    previous_valid_hours: z
      .int()
      .min(0)
      .max(PREVIOUS_SECRET_MAX_HOURS)
      .default(PREVIOUS_SECRET_DEFAULT_HOURS)
      .meta({ description: "How long the current secret keeps signing beside the new one (0: not at all)." }),
  })
  .meta({ id: "RotateSecretRequest" });

export const AttemptSchema = z
  .object({
    number: z.int().meta({ description: "1 for the first attempt." }),
    manual: z.boolean().meta({ description: "A redelivery asked for by the owner." }),
    queued_at: timestamp().meta({ description: "When this attempt was due." }),
    sent_at: timestamp().meta({ description: "When it was actually sent." }),
    duration_ms: z.int(),
    response_status: z
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null without an answer." }),
    error: z
      .string()
      .nullable()
      .meta({ description: "Why there was no answer (timeout, refused address, connection refused...)." }),
    response_excerpt: z
      .string()
      .nullable()
      .meta({ description: "The first 256 bytes of the answer at most." }),
    succeeded: z.boolean().meta({ description: "2xx; anything else (3xx redirects included) failed." }),
  })
  .meta({ id: "DeliveryAttempt" });

export const DeliverySchema = z
  .object({
    id: z.int(),
    event: z.object({
      id: z.string().meta({
        description: "The `webhook-id`: the same on every retry.",
        example: "evt_2m9q4xw3c8r5tz6yb1dqe3k7",
      }),
      type: z.string(),
      timestamp: timestamp(),
      data: z.record(z.string(), z.unknown()).meta({ description: "The event's data, as sent." }),
    }),
    state: z.enum(["pending", "sending", "delivered", "failed"]).meta({
      description:
        "`pending`: waiting for its next attempt (`next_attempt_at`). `sending`: an attempt is under way. " +
        "`delivered`: answered with 2xx. `failed`: every attempt failed, or the endpoint was turned off.",
    }),
    queued_at: timestamp().meta({ description: "When the event was recorded for this endpoint." }),
    delivered_at: timestamp().nullable(),
    next_attempt_at: timestamp().nullable(),
    failure_reason: z.string().nullable(),
    attempts: z.array(AttemptSchema).meta({ description: "Oldest first." }),
  })
  .meta({ id: "Delivery" });

export const DeliveryListSchema = z
  .object({
    deliveries: z.array(DeliverySchema).meta({ description: "Newest first." }),
    next_cursor: nextCursorField(),
  })
  .meta({ id: "DeliveryList" });

export const ExpiryWarningsSchema = z
  .object({
    expires_at: timestamp(),
    renews_itself: z.boolean().meta({
      description:
        "Automatic renewal is on and the balance covers it now: no warning is due unless that changes.",
    }),
    channels: z.int().meta({ description: "Enabled endpoints that receive `server.expiring`." }),
    warnings: z.array(
      z.object({
        lead_hours: z.int(),
        at: timestamp().meta({ description: "When this warning is due." }),
        sent_at: timestamp().nullable().meta({ description: "When it was sent for this period, if it was." }),
      }),
    ),
  })
  .meta({
    id: "ExpiryWarnings",
    description: "When the owner is warned before this server's period ends (`server.expiring`).",
  });

export type Webhook = z.infer<typeof WebhookSchema>;
export type WebhookCreated = z.infer<typeof WebhookCreatedSchema>;
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequestSchema>;
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequestSchema>;
export type Delivery = z.infer<typeof DeliverySchema>;
export type Attempt = z.infer<typeof AttemptSchema>;
export type ExpiryWarnings = z.infer<typeof ExpiryWarningsSchema>;

export const CreateWebhookBody = requestBody(CreateWebhookRequestSchema, {
  url: "invalid_webhook_url",
  kind: "invalid_kind",
  events: "invalid_events",
  description: "invalid_description",
  ntfy_token: "invalid_ntfy_token",
});

export const UpdateWebhookBody = requestBody(UpdateWebhookRequestSchema, {
  url: "invalid_webhook_url",
  events: "invalid_events",
  description: "invalid_description",
  enabled: "invalid_enabled",
  ntfy_token: "invalid_ntfy_token",
});

export const RotateSecretBody = requestBody(RotateSecretRequestSchema, {
  previous_valid_hours: "invalid_previous_valid_hours",
});
