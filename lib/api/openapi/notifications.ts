/**
 * The OpenAPI operations of notifications (webhooks and ntfy push topics), and the events they carry,
 * published under the document's `webhooks` (OpenAPI 3.1): one entry per event type with its body's schema.
 */
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { EmptyBody, pageQuerySchema } from "@/lib/api/schemas/common";
import { EVENT_SCHEMAS, TestEventSchema } from "@/lib/api/schemas/events";
import {
  CreateWebhookBody,
  DELIVERY_PAGE_DEFAULT,
  DeliveryListSchema,
  DeliverySchema,
  ExpiryWarningsSchema,
  MAX_ENDPOINTS,
  RotateSecretBody,
  UpdateWebhookBody,
  WebhookCreatedSchema,
  WebhookListSchema,
  WebhookSchema,
} from "@/lib/api/schemas/notifications";
import type { EventType } from "@/lib/db/types";
import {
  describeSpan,
  MAX_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
  RETRY_SPAN_SECONDS,
} from "@/lib/notifications/schedule";
import { EVENT_DESCRIPTIONS } from "@/lib/notifications/types";
import { serverIdParam, serverNotFound } from "./servers";
import {
  authed,
  bodyErrors,
  DEFAULTS,
  errorResponse,
  jsonContent,
  jsonRequest,
  perWindow,
  responses,
  retryAfter,
} from "./shared";

const webhookIdParam = z.object({
  id: z
    .string()
    .regex(/^\d+$/)
    .meta({ description: "The webhook's integer id, as listed by GET /webhooks." }),
});
const deliveryParams = webhookIdParam.extend({
  deliveryId: z.string().regex(/^\d+$/).meta({ description: "The delivery's integer id." }),
});
const webhookNotFound = errorResponse("No webhook with that id on this account.", ["not_found"]);
const sendLimited = errorResponse(
  `Too many test sends and redeliveries for this account (${perWindow(DEFAULTS.RATE_LIMIT_NOTIFICATION_SENDS)} ` +
    "by default, `RATE_LIMIT_NOTIFICATION_SENDS`); or this client address sent too many bad API keys.",
  ["rate_limited"],
  retryAfter,
);
const schedule = RETRY_DELAYS_SECONDS.map((seconds) => describeSpan(seconds)).join(", ");

export const notificationsTag = {
  name: "Notifications",
  description:
    "Webhooks and ntfy push topics: no e-mail, no identity. A webhook gets a JSON POST signed after the Standard " +
    "Webhooks specification (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`; verify with the " +
    "`whsec_` secret shown at creation, with any Standard Webhooks library); an ntfy topic gets a push with a " +
    "title and a message. Each event is recorded in the same transaction as the change it announces and is " +
    "delivered at least once; its id (`webhook-id`) is the same on every retry, so drop duplicates by it. A " +
    `failed delivery (no 2xx within 5 s; redirects are not followed) is retried after ${schedule}: ` +
    `${MAX_ATTEMPTS} attempts over ${describeSpan(RETRY_SPAN_SECONDS)}. An endpoint whose every attempt failed ` +
    `for ${DEFAULTS.NOTIFY_DISABLE_AFTER_DAYS} days (\`NOTIFY_DISABLE_AFTER_DAYS\`) is turned off and says so ` +
    "(`disabled_reason`). URLs must be https in production, and their host must resolve to public addresses " +
    "only (never loopback, private, link-local or a cloud metadata address), checked at creation and again " +
    "before every delivery, which then connects to the address checked. The event bodies are documented under " +
    "`webhooks`.",
};

export const notificationsPaths: ZodOpenApiPathsObject = {
  "/webhooks": {
    get: authed("webhooks:read", {
      tags: ["Notifications"],
      operationId: "listWebhooks",
      summary: "List webhooks and push topics",
      responses: { "200": { description: "Oldest first.", content: jsonContent(WebhookListSchema) } },
    }),
    post: authed("webhooks:write", {
      tags: ["Notifications"],
      operationId: "createWebhook",
      summary: "Add a webhook or an ntfy push topic",
      description:
        `At most ${MAX_ENDPOINTS} per account. A webhook's signing secret is in this response only (rotate it ` +
        "with POST /webhooks/{id}/rotate-secret). The URL's host is resolved now and must be public.",
      requestBody: jsonRequest(CreateWebhookBody),
      responses: {
        "201": { description: "Added.", content: jsonContent(WebhookCreatedSchema) },
        "400": bodyErrors("Bad body, or a URL that is refused.", CreateWebhookBody, ["webhook_url_refused"]),
        "409": errorResponse(`The account already has ${MAX_ENDPOINTS}.`, ["webhook_limit_reached"]),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
      },
    }),
  },
  "/webhooks/{id}": {
    get: authed("webhooks:read", {
      tags: ["Notifications"],
      operationId: "getWebhook",
      summary: "One webhook or push topic",
      requestParams: { path: webhookIdParam },
      responses: {
        "200": { description: "It.", content: jsonContent(WebhookSchema) },
        "404": webhookNotFound,
      },
    }),
    patch: authed("webhooks:write", {
      tags: ["Notifications"],
      operationId: "updateWebhook",
      summary: "Change a webhook: URL, events, description, on or off",
      description:
        "`enabled: false` turns it off (deliveries waiting for an attempt fail); `enabled: true` turns it on again, " +
        "also after it was disabled for failing, and forgets its failures.",
      requestParams: { path: webhookIdParam },
      requestBody: jsonRequest(UpdateWebhookBody),
      responses: {
        "200": { description: "As it is now.", content: jsonContent(WebhookSchema) },
        "400": bodyErrors("Bad body, or a URL that is refused.", UpdateWebhookBody, ["webhook_url_refused"]),
        "404": webhookNotFound,
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
      },
    }),
    delete: authed("webhooks:write", {
      tags: ["Notifications"],
      operationId: "deleteWebhook",
      summary: "Delete a webhook or push topic, with its delivery log",
      requestParams: { path: webhookIdParam },
      responses: {
        "200": {
          description: "Deleted.",
          content: jsonContent(z.object({ id: z.int(), deleted: z.literal(true) })),
        },
        "404": webhookNotFound,
      },
    }),
  },
  "/webhooks/{id}/test": {
    post: authed("webhooks:write", {
      tags: ["Notifications"],
      operationId: "testWebhook",
      summary: "Send a test event",
      description: "Queues a `webhook.test` event for this endpoint only; it is sent within a second.",
      requestParams: { path: webhookIdParam },
      responses: {
        "202": { description: "The delivery, queued.", content: jsonContent(DeliverySchema) },
        "400": bodyErrors("The body was not empty or `{}`.", EmptyBody),
        "404": webhookNotFound,
        "409": errorResponse("The endpoint is turned off.", ["webhook_disabled"]),
        "429": sendLimited,
      },
    }),
  },
  "/webhooks/{id}/rotate-secret": {
    post: authed("webhooks:write", {
      tags: ["Notifications"],
      operationId: "rotateWebhookSecret",
      summary: "Rotate a webhook's signing secret",
      description:
        "A new secret, shown in this response only. The current one keeps signing beside it (two signatures in " +
        "`webhook-signature`) for `previous_valid_hours` (24 by default), so receivers switch without a gap.",
      requestParams: { path: webhookIdParam },
      requestBody: jsonRequest(RotateSecretBody, { required: false }),
      responses: {
        "200": {
          description: "The webhook with its new secret.",
          content: jsonContent(WebhookCreatedSchema),
        },
        "400": bodyErrors("Bad body.", RotateSecretBody),
        "404": webhookNotFound,
        "409": errorResponse("An ntfy topic has no signing secret.", ["not_a_webhook"]),
      },
    }),
  },
  "/webhooks/{id}/deliveries": {
    get: authed("webhooks:read", {
      tags: ["Notifications"],
      operationId: "listWebhookDeliveries",
      summary: "The delivery log: each event sent here and every attempt",
      description:
        "Newest first. Each attempt says when it was due (`queued_at`) and when it went (`sent_at`), how long it " +
        "took, and what came back (status, or why none; at most 256 bytes of the body). Kept 30 days.",
      requestParams: { path: webhookIdParam, query: pageQuerySchema(DELIVERY_PAGE_DEFAULT) },
      responses: {
        "200": { description: "A page of deliveries.", content: jsonContent(DeliveryListSchema) },
        "400": responses.badPage,
        "404": webhookNotFound,
      },
    }),
  },
  "/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
    post: authed("webhooks:write", {
      tags: ["Notifications"],
      operationId: "redeliverWebhookDelivery",
      summary: "Send a delivery again",
      description:
        "The same event (the same `webhook-id` and body), once, now; it is not retried if it fails. A delivery " +
        "waiting for a retry is brought forward instead.",
      requestParams: { path: deliveryParams },
      responses: {
        "202": { description: "The delivery, queued.", content: jsonContent(DeliverySchema) },
        "400": bodyErrors("The body was not empty or `{}`.", EmptyBody),
        "404": errorResponse("No such webhook on this account, or no such delivery of it.", ["not_found"]),
        "409": errorResponse("The endpoint is turned off, or an attempt is under way.", [
          "webhook_disabled",
          "delivery_in_progress",
        ]),
        "429": sendLimited,
      },
    }),
  },
  "/servers/{id}/expiry-warnings": {
    get: authed("servers:read", {
      tags: ["Notifications"],
      operationId: "getServerExpiryWarnings",
      summary: "When the owner is warned before this server expires",
      description:
        `\`server.expiring\` is sent ${DEFAULTS.NOTIFY_EXPIRY_WARNING_HOURS.join(" and ")} hours before expiry ` +
        "(`NOTIFY_EXPIRY_WARNING_HOURS`) when the server will not renew by itself (automatic renewal off, or a " +
        "balance short of its price), once per lead time and period.",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "Its warnings.", content: jsonContent(ExpiryWarningsSchema) },
        "404": serverNotFound,
      },
    }),
  },
};

/** The `webhooks` of the document: what a receiver is sent, one entry per event type. */
export const notificationEvents: ZodOpenApiPathsObject = Object.fromEntries([
  ...Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [
    type,
    {
      post: {
        tags: ["Notifications"],
        operationId: `event_${type.replace(".", "_")}`,
        summary: EVENT_DESCRIPTIONS[type as EventType],
        requestBody: { required: true, content: jsonContent(schema) },
        responses: {
          "200": { description: "Any 2xx within 5 s acknowledges it; anything else is retried." },
        },
      },
    },
  ]),
  [
    "webhook.test",
    {
      post: {
        tags: ["Notifications"],
        operationId: "event_webhook_test",
        summary: "A test event (POST /webhooks/{id}/test)",
        requestBody: { required: true, content: jsonContent(TestEventSchema) },
        responses: { "200": { description: "Any 2xx acknowledges it." } },
      },
    },
  ],
]);
