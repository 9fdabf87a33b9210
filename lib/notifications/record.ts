import "server-only";
import { randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { EventData } from "@/lib/api/schemas/events";
import type { Tx } from "@/lib/db/client";
import { notificationDeliveries, notificationEndpoints, notificationEvents } from "@/lib/db/schema";
import type { EventType } from "@/lib/db/types";
import { now } from "@/lib/util/clock";
import { TEST_EVENT_TYPE } from "./types";

export const newEventId = () => `evt_${base32crockford.encode(randomBytes(15)).toLowerCase()}`;

/** The body every delivery of an event sends, unchanged across retries (Standard Webhooks' envelope). */
export const eventPayload = (type: string, occurredAt: Date, data: unknown) =>
  JSON.stringify({ type, timestamp: occurredAt.toISOString(), data });

/** A condition: the account in `accountColumn` has an enabled endpoint that takes `type`. */
export const listensTo = (accountColumn: AnyPgColumn, type: string): SQL =>
  sql`EXISTS (SELECT 1 FROM ${notificationEndpoints} WHERE ${notificationEndpoints.accountId} = ${accountColumn}
    AND ${notificationEndpoints.enabled} AND ${type} = ANY(${notificationEndpoints.eventTypes}))`;

export type NewEvent<T extends EventType> = {
  accountId: number;
  type: T;
  /**
   * Names the fact (e.g. `server.suspended:12:2026-12-01T10:00:00.000Z`): an event with a key already
   * recorded is not recorded again, so the same fact is announced once however often this runs.
   */
  factKey: string;
  /** Built only when an endpoint listens. */
  data: () => EventData<T> | Promise<EventData<T>>;
};

/**
 * Records an event in the caller's transaction, so it exists exactly when the change it announces is
 * committed: the event (its payload fixed now), and a delivery for each enabled endpoint of the account that
 * takes its type, due at once. Nothing is written when no endpoint listens. Returns the event's row id, or
 * undefined when nothing was recorded.
 */
export async function recordEvent<T extends EventType>(
  tx: Tx,
  event: NewEvent<T>,
): Promise<number | undefined> {
  const listening = await tx
    .select({ id: notificationEndpoints.id })
    .from(notificationEndpoints)
    .where(
      and(
        eq(notificationEndpoints.accountId, event.accountId),
        eq(notificationEndpoints.enabled, true),
        sql`${event.type} = ANY(${notificationEndpoints.eventTypes})`,
      ),
    );
  if (listening.length === 0) return undefined;
  return insertEvent(
    tx,
    event.accountId,
    event.type,
    event.factKey,
    await event.data(),
    listening.map((endpoint) => endpoint.id),
  );
}

/** The event of a test send, for the one endpoint it was asked for. */
export function recordTestEvent(tx: Tx, accountId: number, endpointId: number): Promise<number | undefined> {
  return insertEvent(
    tx,
    accountId,
    TEST_EVENT_TYPE,
    null,
    { webhook_id: endpointId, message: "A test event, sent because you asked for one." },
    [endpointId],
  );
}

async function insertEvent(
  tx: Tx,
  accountId: number,
  type: EventType | typeof TEST_EVENT_TYPE,
  factKey: string | null,
  data: unknown,
  endpointIds: number[],
): Promise<number | undefined> {
  const occurredAt = now();
  const [inserted] = await tx
    .insert(notificationEvents)
    .values({
      publicId: newEventId(),
      accountId,
      type,
      factKey,
      payload: eventPayload(type, occurredAt, data),
      occurredAt,
    })
    .onConflictDoNothing({ target: notificationEvents.factKey })
    .returning({ id: notificationEvents.id });
  if (!inserted) return undefined;
  await tx.insert(notificationDeliveries).values(
    endpointIds.map((endpointId) => ({
      eventId: inserted.id,
      endpointId,
      createdAt: occurredAt,
      nextAttemptAt: occurredAt,
    })),
  );
  return inserted.id;
}
