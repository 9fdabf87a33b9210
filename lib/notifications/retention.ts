import "server-only";
import { and, asc, inArray, lt, notExists, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { notificationDeliveries, notificationEvents } from "@/lib/db/schema";

/** Events (with their deliveries and attempts) are kept this long: the delivery log shows a month. */
export const EVENT_RETENTION_DAYS = 30;

/**
 * Deletes up to `batch` events that happened before `before` and have no delivery still waiting for an
 * attempt, oldest first; their deliveries and attempts go with them. Returns how many.
 */
export async function pruneOldEvents(database: Database, before: Date, batch: number): Promise<number> {
  const old = database
    .select({ id: notificationEvents.id })
    .from(notificationEvents)
    .where(
      and(
        lt(notificationEvents.occurredAt, before),
        notExists(
          database
            .select({ one: sql`1` })
            .from(notificationDeliveries)
            .where(
              and(
                sql`${notificationDeliveries.eventId} = ${notificationEvents.id}`,
                sql`${notificationDeliveries.state} IN ('pending', 'sending')`,
              ),
            ),
        ),
      ),
    )
    .orderBy(asc(notificationEvents.occurredAt))
    .limit(batch);
  const deleted = await database
    .delete(notificationEvents)
    .where(inArray(notificationEvents.id, old))
    .returning({ id: notificationEvents.id });
  return deleted.length;
}
