import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import type { ExpiryWarnings } from "@/lib/api/schemas/notifications";
import { db } from "@/lib/db/client";
import { accounts, notificationEndpoints, notificationEvents } from "@/lib/db/schema";
import { notificationSettings } from "@/lib/notifications/config";
import { expiringFactKey } from "@/lib/notifications/scans";
import { wontRenewBecause } from "@/lib/notifications/warnings";
import { type ServerReader, serverPart } from "./reads";

/** When the owner of a server is warned before it expires, and which warnings of this period went out. */
export async function expiryWarnings(reader: ServerReader, serverId: number): Promise<ExpiryWarnings> {
  const leads = notificationSettings().expiryWarningHours;
  const keysOf = (expiresAt: Date) => leads.map((hours) => expiringFactKey(serverId, expiresAt, hours));
  // The warnings sent are those of this period: the part's name says which expiry.
  const { row, part } = await serverPart(
    reader,
    serverId,
    (row) => `expiry-warnings:${row.expiresAt.getTime()}`,
    ["accounts", "notification_endpoints", "notification_events"],
    async ({ expiresAt }) => {
      const database = await db();
      const [account] = await database
        .select({ balanceCents: accounts.balanceCents })
        .from(accounts)
        .where(eq(accounts.id, reader.accountId));
      const endpoints = await database
        .select({ events: notificationEndpoints.eventTypes })
        .from(notificationEndpoints)
        .where(
          and(eq(notificationEndpoints.accountId, reader.accountId), eq(notificationEndpoints.enabled, true)),
        );
      const sent = await database
        .select({ key: notificationEvents.factKey, at: notificationEvents.occurredAt })
        .from(notificationEvents)
        .where(inArray(notificationEvents.factKey, keysOf(expiresAt)));
      return { account, endpoints, sent };
    },
  );
  const { account, endpoints, sent } = part;
  const keys = keysOf(row.expiresAt);
  const sentAt = new Map(sent.map((event) => [event.key, event.at]));
  return {
    expires_at: row.expiresAt.toISOString(),
    renews_itself: wontRenewBecause(row.autoRenew, account?.balanceCents ?? 0, row.priceCents) === undefined,
    channels: endpoints.filter((endpoint) => endpoint.events.includes("server.expiring")).length,
    warnings: leads.map((hours, index) => ({
      lead_hours: hours,
      at: new Date(row.expiresAt.getTime() - hours * 3_600_000).toISOString(),
      sent_at: sentAt.get(keys[index] ?? "")?.toISOString() ?? null,
    })),
  };
}
