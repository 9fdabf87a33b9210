/** The top-up states of the API and the one rule that moves between them. */
import type { TopupStatus } from "@/lib/db/types";

export type { TopupStatus };

/**
 * Where a deposit top-up stands given what the chain shows:
 * - whatever its state, once the confirmed payments cover the asked amount it is `completed`
 *   (a late payment to an expired or cancelled top-up still counts: crypto cannot be sent back);
 * - a `pending` top-up past `expires_at` with no payment still confirming becomes `expired`
 *   (a partial payment that confirmed is credited for what it is worth and the rest is not awaited);
 * - otherwise nothing changes.
 */
export function nextTopupStatus(input: {
  status: TopupStatus;
  now: Date;
  expiresAt: Date | null;
  confirmedUnits: bigint;
  unconfirmedUnits: bigint;
  requiredUnits: bigint;
}): TopupStatus {
  const { status, now, expiresAt, confirmedUnits, unconfirmedUnits, requiredUnits } = input;
  if (confirmedUnits >= requiredUnits) return "completed";
  if (status === "pending" && expiresAt && now >= expiresAt && unconfirmedUnits === 0n) return "expired";
  return status;
}
