import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { config } from "@/lib/config/env";
import type { Tx } from "@/lib/db/client";
import { notificationDeliveries, notificationEndpoints } from "@/lib/db/schema";
import { unseal } from "@/lib/util/seal";
import type { UrlPolicy } from "./address";
import { notificationSettings } from "./config";

export type EndpointRow = typeof notificationEndpoints.$inferSelect;

/** The purpose a stored secret is sealed under: it decrypts for its own endpoint only. */
export const secretPurpose = (endpointId: number) => `notification-endpoint:${endpointId}`;

/**
 * Where this deployment may send: https only in production, to port 443 (and 80 outside production) and the
 * ports NOTIFY_ALLOWED_PORTS adds; loopback only where tests allow it.
 */
export function urlPolicy(): UrlPolicy {
  const production = config().mode === "production";
  const settings = notificationSettings();
  return {
    httpsOnly: production,
    allowLoopback: settings.allowLoopback,
    ports: [...new Set([443, ...(production ? [] : [80]), ...settings.extraPorts])],
  };
}

/** The secrets that sign a webhook now: its own, and during a rotation the previous one too. */
export function signingSecrets(endpoint: EndpointRow, at: Date): string[] {
  const key = config().encryptionKey;
  const purpose = secretPurpose(endpoint.id);
  const secrets = endpoint.secretEnc ? [unseal(key, purpose, endpoint.secretEnc)] : [];
  if (
    endpoint.previousSecretEnc &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt > at
  ) {
    secrets.push(unseal(key, purpose, endpoint.previousSecretEnc));
  }
  return secrets;
}

/**
 * Turns an endpoint off (its owner asked, or it failed for days): it gets no new deliveries, and those
 * waiting for an attempt fail with `reason` (each can be redelivered once it is on again).
 */
export async function turnOff(tx: Tx, endpointId: number, at: Date, reason: string): Promise<void> {
  await tx
    .update(notificationEndpoints)
    .set({ enabled: false, disabledAt: at, disabledReason: reason })
    .where(eq(notificationEndpoints.id, endpointId));
  await tx
    .update(notificationDeliveries)
    .set({ state: "failed", nextAttemptAt: null, failureReason: reason, manual: false })
    .where(
      and(
        eq(notificationDeliveries.endpointId, endpointId),
        sql`${notificationDeliveries.state} = 'pending'`,
      ),
    );
}
