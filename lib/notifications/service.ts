import "server-only";
import { and, asc, desc, eq, inArray, lt, sql } from "drizzle-orm";
import { badRequest, conflict, notFound } from "@/lib/api/errors";
import { type Page, type PageRequest, toPage } from "@/lib/api/pagination";
import {
  type CreateWebhookRequest,
  type Delivery,
  MAX_ENDPOINTS,
  type UpdateWebhookRequest,
  type Webhook,
  type WebhookCreated,
} from "@/lib/api/schemas/notifications";
import { config } from "@/lib/config/env";
import type { Database, Tx } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import {
  accounts,
  notificationAttempts,
  notificationDeliveries,
  notificationEndpoints,
  notificationEvents,
} from "@/lib/db/schema";
import { EVENT_TYPES } from "@/lib/db/types";
import { reuseUntilWrite } from "@/lib/db/until-write";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { now } from "@/lib/util/clock";
import { seal } from "@/lib/util/seal";
import { checkUrl } from "./address";
import { type EndpointRow, secretPurpose, turnOff, urlPolicy } from "./endpoint-state";
import { recordTestEvent } from "./record";
import { newWebhookSecret } from "./signing";
import { resolveTarget } from "./transport";

/** The API's view of an endpoint: never a secret or a token. */
export function presentWebhook(row: EndpointRow): Webhook {
  return {
    id: row.id,
    kind: row.kind,
    url: row.url,
    description: row.description,
    events: row.eventTypes,
    enabled: row.enabled,
    disabled_at: row.disabledAt?.toISOString() ?? null,
    disabled_reason: row.disabledReason,
    failing_since: row.failingSince?.toISOString() ?? null,
    last_success_at: row.lastSuccessAt?.toISOString() ?? null,
    has_token: row.kind === "ntfy" && row.secretEnc !== null,
    previous_secret_expires_at:
      row.previousSecretExpiresAt && row.previousSecretExpiresAt > now()
        ? row.previousSecretExpiresAt.toISOString()
        : null,
    created_at: row.createdAt.toISOString(),
  };
}

/** A URL well formed for an endpoint (https in production, an allowed port): checked without resolving. */
function wellFormedUrl(text: string): URL {
  const checked = checkUrl(text, urlPolicy());
  if ("problem" in checked) {
    throw badRequest(checked.refused ? "webhook_url_refused" : "invalid_webhook_url", checked.problem);
  }
  return checked.url;
}

/**
 * A URL that may be sent to: its host resolves, right now, to public addresses only. It comes last, after
 * every check that costs nothing (the form of the URL, ownership, the endpoint limit), and it is counted per
 * account (RATE_LIMIT_WEBHOOK_URLS): the name is the account's choice, and so is how slowly it answers.
 * Resolved before any transaction opens; every delivery checks again.
 */
async function acceptableUrl(accountId: number, url: URL): Promise<string> {
  await consume(limiters().webhookUrls, `account:${accountId}`);
  const resolved = await resolveTarget(url, urlPolicy());
  if ("refused" in resolved) {
    throw badRequest("webhook_url_refused", `Not sent to: ${resolved.refused}. Use a public address.`);
  }
  return url.toString();
}

async function lockAccount(tx: Tx, accountId: number) {
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
}

/** The account's endpoint `id` (locked when asked, inside a transaction), or 404. A plain read needs none. */
async function ownedEndpoint(
  tx: Tx | Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<EndpointRow> {
  const query = tx
    .select()
    .from(notificationEndpoints)
    .where(and(eq(notificationEndpoints.id, id), eq(notificationEndpoints.accountId, accountId)));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound(`No webhook with id ${id}.`);
  return row;
}

export async function listWebhooks(accountId: number): Promise<Webhook[]> {
  const database = await db();
  const rows = await database
    .select()
    .from(notificationEndpoints)
    .where(eq(notificationEndpoints.accountId, accountId))
    .orderBy(asc(notificationEndpoints.id));
  return rows.map(presentWebhook);
}

export async function getWebhook(accountId: number, id: number): Promise<Webhook> {
  const database = await db();
  return presentWebhook(await ownedEndpoint(database, accountId, id));
}

async function refuseAtEndpointLimit(tx: Tx | Database, accountId: number): Promise<void> {
  const [count] = await tx
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(notificationEndpoints)
    .where(eq(notificationEndpoints.accountId, accountId));
  if ((count?.n ?? 0) >= MAX_ENDPOINTS) {
    throw conflict(
      "webhook_limit_reached",
      `An account can have ${MAX_ENDPOINTS} webhooks and push topics; delete one first.`,
    );
  }
}

/**
 * Adds a webhook (with a new signing secret, returned once) or an ntfy topic. At most MAX_ENDPOINTS per
 * account, counted under the account's row lock.
 */
export async function createWebhook(
  accountId: number,
  request: CreateWebhookRequest,
): Promise<WebhookCreated> {
  if (request.kind !== "ntfy" && request.ntfy_token !== undefined) {
    throw badRequest("invalid_ntfy_token", "ntfy_token is for ntfy topics only.");
  }
  const database = await db();
  // The limit first, without a lock (a full account resolves nothing); again under the lock below.
  await refuseAtEndpointLimit(database, accountId);
  const url = await acceptableUrl(accountId, wellFormedUrl(request.url));
  const secret = request.kind === "ntfy" ? (request.ntfy_token ?? null) : newWebhookSecret();
  const row = await database.transaction(async (tx) => {
    await lockAccount(tx, accountId);
    await refuseAtEndpointLimit(tx, accountId);
    const [inserted] = await tx
      .insert(notificationEndpoints)
      .values({
        accountId,
        kind: request.kind,
        url,
        description: request.description || null,
        eventTypes: request.events ? [...new Set(request.events)] : [...EVENT_TYPES],
        createdAt: now(),
      })
      .returning();
    if (!inserted) throw new Error("endpoint insert returned no row");
    if (secret === null) return inserted;
    const [stored] = await tx
      .update(notificationEndpoints)
      .set({ secretEnc: seal(config().encryptionKey, secretPurpose(inserted.id), secret) })
      .where(eq(notificationEndpoints.id, inserted.id))
      .returning();
    return stored ?? inserted;
  });
  return { ...presentWebhook(row), secret: request.kind === "ntfy" ? null : secret };
}

/** Changes an endpoint; turning it off fails what waits for an attempt, turning it on clears its failures. */
export async function updateWebhook(
  accountId: number,
  id: number,
  request: UpdateWebhookRequest,
): Promise<Webhook> {
  const database = await db();
  let url: string | undefined;
  if (request.url !== undefined) {
    const wellFormed = wellFormedUrl(request.url);
    // Another account's webhook, or none, resolves nothing.
    await ownedEndpoint(database, accountId, id);
    url = await acceptableUrl(accountId, wellFormed);
  }
  const row = await database.transaction(async (tx) => {
    const current = await ownedEndpoint(tx, accountId, id, true);
    if (request.ntfy_token !== undefined && current.kind !== "ntfy") {
      throw badRequest("invalid_ntfy_token", "ntfy_token is for ntfy topics only.");
    }
    const at = now();
    const changes: Partial<EndpointRow> = {
      ...(url === undefined ? {} : { url }),
      ...(request.events === undefined ? {} : { eventTypes: [...new Set(request.events)] }),
      ...(request.description === undefined ? {} : { description: request.description || null }),
      ...(request.ntfy_token === undefined
        ? {}
        : {
            secretEnc:
              request.ntfy_token === null
                ? null
                : seal(config().encryptionKey, secretPurpose(current.id), request.ntfy_token),
          }),
      ...(request.enabled === true && !current.enabled
        ? { enabled: true, disabledAt: null, disabledReason: null, failingSince: null }
        : {}),
    };
    if (Object.keys(changes).length > 0) {
      await tx.update(notificationEndpoints).set(changes).where(eq(notificationEndpoints.id, current.id));
    }
    if (request.enabled === false && current.enabled) {
      await turnOff(tx, current.id, at, "Turned off by its owner.");
    }
    return ownedEndpoint(tx, accountId, id);
  });
  return presentWebhook(row);
}

export async function deleteWebhook(accountId: number, id: number): Promise<{ id: number; deleted: true }> {
  const database = await db();
  await database.transaction(async (tx) => {
    const row = await ownedEndpoint(tx, accountId, id, true);
    await tx.delete(notificationEndpoints).where(eq(notificationEndpoints.id, row.id));
  });
  return { id, deleted: true };
}

/**
 * A new signing secret, returned once; the current one keeps signing beside it for `previousValidHours`, so
 * receivers can switch over without missing a delivery.
 */
export async function rotateSecret(
  accountId: number,
  id: number,
  previousValidHours: number,
): Promise<WebhookCreated> {
  const secret = newWebhookSecret();
  const database = await db();
  const row = await database.transaction(async (tx) => {
    const current = await ownedEndpoint(tx, accountId, id, true);
    if (current.kind !== "webhook" || !current.secretEnc) {
      throw conflict("not_a_webhook", "This is an ntfy topic: it has no signing secret to rotate.");
    }
    const [updated] = await tx
      .update(notificationEndpoints)
      .set({
        secretEnc: seal(config().encryptionKey, secretPurpose(current.id), secret),
        previousSecretEnc: previousValidHours > 0 ? current.secretEnc : null,
        previousSecretExpiresAt:
          previousValidHours > 0 ? new Date(now().getTime() + previousValidHours * 3_600_000) : null,
      })
      .where(eq(notificationEndpoints.id, current.id))
      .returning();
    return updated ?? current;
  });
  return { ...presentWebhook(row), secret };
}

/** Each test send and redelivery is a request to a URL the account chose: counted per account. */
async function countSend(accountId: number): Promise<void> {
  await consume(limiters().notificationSends, `account:${accountId}`);
}

function refuseWhileOff(row: EndpointRow): void {
  if (!row.enabled) {
    throw conflict("webhook_disabled", "This webhook is turned off: turn it on (PATCH enabled: true) first.");
  }
}

/** Queues a `webhook.test` event for this endpoint only; the worker sends it within a moment. */
export async function sendTest(accountId: number, id: number): Promise<Delivery> {
  const database = await db();
  // Checked before it is counted: a refusal costs nothing.
  refuseWhileOff(await ownedEndpoint(database, accountId, id));
  await countSend(accountId);
  const deliveryId = await database.transaction(async (tx) => {
    refuseWhileOff(await ownedEndpoint(tx, accountId, id, true));
    const eventId = await recordTestEvent(tx, accountId, id);
    const [delivery] = await tx
      .select({ id: notificationDeliveries.id })
      .from(notificationDeliveries)
      .where(
        and(eq(notificationDeliveries.eventId, eventId ?? 0), eq(notificationDeliveries.endpointId, id)),
      );
    if (!delivery) throw new Error("test delivery was not recorded");
    return delivery.id;
  });
  return getDelivery(accountId, id, deliveryId);
}

/** The delivery, locked in `tx`, if it may be sent again now. */
async function redeliverable(
  tx: Tx,
  accountId: number,
  id: number,
  deliveryId: number,
): Promise<DeliveryRow> {
  refuseWhileOff(await ownedEndpoint(tx, accountId, id, true));
  const [delivery] = await tx
    .select()
    .from(notificationDeliveries)
    .where(and(eq(notificationDeliveries.id, deliveryId), eq(notificationDeliveries.endpointId, id)))
    .for("update");
  if (!delivery) throw notFound(`No delivery with id ${deliveryId} for this webhook.`);
  if (delivery.state === "sending") {
    throw conflict("delivery_in_progress", "An attempt at this delivery is under way; wait for its outcome.");
  }
  return delivery;
}

/**
 * Sends a delivery again, with the same event (and `webhook-id`): one attempt now, without retries if it
 * fails. One waiting for a retry is brought forward instead.
 */
export async function redeliver(accountId: number, id: number, deliveryId: number): Promise<Delivery> {
  const database = await db();
  await database.transaction((tx) => redeliverable(tx, accountId, id, deliveryId));
  await countSend(accountId);
  await database.transaction(async (tx) => {
    const delivery = await redeliverable(tx, accountId, id, deliveryId);
    await tx
      .update(notificationDeliveries)
      .set({
        state: "pending",
        nextAttemptAt: now(),
        failureReason: null,
        manual: delivery.state !== "pending",
      })
      .where(eq(notificationDeliveries.id, delivery.id));
  });
  return getDelivery(accountId, id, deliveryId);
}

type DeliveryRow = typeof notificationDeliveries.$inferSelect;
type EventRow = typeof notificationEvents.$inferSelect;
type AttemptRow = typeof notificationAttempts.$inferSelect;

function presentDelivery(row: DeliveryRow, event: EventRow, attempts: AttemptRow[]): Delivery {
  const payload = JSON.parse(event.payload) as { data: Record<string, unknown> };
  return {
    id: row.id,
    event: {
      id: event.publicId,
      type: event.type,
      timestamp: event.occurredAt.toISOString(),
      data: payload.data,
    },
    state: row.state,
    queued_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    next_attempt_at: row.state === "pending" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    failure_reason: row.failureReason,
    attempts: attempts.map((attempt) => ({
      number: attempt.number,
      manual: attempt.manual,
      queued_at: attempt.queuedAt.toISOString(),
      sent_at: attempt.sentAt.toISOString(),
      duration_ms: attempt.durationMs,
      response_status: attempt.responseStatus,
      error: attempt.error,
      response_excerpt: attempt.responseExcerpt,
      succeeded: attempt.succeeded,
    })),
  };
}

async function presentDeliveries(rows: { delivery: DeliveryRow; event: EventRow }[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const database = await db();
  const attempts = await database
    .select()
    .from(notificationAttempts)
    .where(
      inArray(
        notificationAttempts.deliveryId,
        rows.map((row) => row.delivery.id),
      ),
    )
    .orderBy(asc(notificationAttempts.id));
  const byDelivery = new Map<number, AttemptRow[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.deliveryId) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.deliveryId, list);
  }
  return rows.map(({ delivery, event }) =>
    presentDelivery(delivery, event, byDelivery.get(delivery.id) ?? []),
  );
}

async function getDelivery(accountId: number, id: number, deliveryId: number): Promise<Delivery> {
  const page = await deliveryRows(accountId, id, { limit: 1, beforeId: undefined }, deliveryId);
  const [delivery] = await presentDeliveries(page);
  if (!delivery) throw notFound(`No delivery with id ${deliveryId} for this webhook.`);
  return delivery;
}

async function deliveryRows(accountId: number, id: number, page: PageRequest, onlyId?: number) {
  const database = await db();
  await ownedEndpoint(database, accountId, id);
  return database
    .select({ delivery: notificationDeliveries, event: notificationEvents })
    .from(notificationDeliveries)
    .innerJoin(notificationEvents, eq(notificationEvents.id, notificationDeliveries.eventId))
    .where(
      and(
        eq(notificationDeliveries.endpointId, id),
        onlyId === undefined ? undefined : eq(notificationDeliveries.id, onlyId),
        page.beforeId ? lt(notificationDeliveries.id, page.beforeId) : undefined,
      ),
    )
    .orderBy(desc(notificationDeliveries.id))
    .limit(page.limit + 1);
}

/** What a page of deliveries is read from: on the embedded database it is reused until one is written. */
const DELIVERY_TABLES = [
  "notification_endpoints",
  "notification_deliveries",
  "notification_attempts",
  "notification_events",
];

/** One page of an endpoint's deliveries, newest first, each with every attempt made. */
export function listDeliveries(accountId: number, id: number, page: PageRequest): Promise<Page<Delivery>> {
  return reuseUntilWrite(
    `deliveries:${accountId}:${id}:${page.beforeId ?? ""}:${page.limit}`,
    async () => {
      const rows = await deliveryRows(accountId, id, page);
      const cut = toPage(
        rows.map((row) => ({ ...row, id: row.delivery.id })),
        page.limit,
        (row) => row,
      );
      return { items: await presentDeliveries(cut.items), nextCursor: cut.nextCursor };
    },
    undefined,
    DELIVERY_TABLES,
  );
}
