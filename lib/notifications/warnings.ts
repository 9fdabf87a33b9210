/**
 * Warnings that time brings rather than a change: a server about to expire that will not renew by itself,
 * and a balance that does not cover the renewals of the coming week. Pure rules; lib/notifications/scans.ts
 * runs them against the database.
 */

/** How far ahead the balance is checked against the automatic renewals due. */
export const BALANCE_WINDOW_DAYS = 7;

/**
 * The warning stage a server is in `remainingMs` before its expiry: the shortest lead time (hours, longest
 * first) it is already inside, or undefined before the first one. A server first seen inside several lead
 * times at once (the app was down) is warned once, at the nearest.
 */
export function warningStage(remainingMs: number, leadHours: readonly number[]): number | undefined {
  if (remainingMs <= 0) return undefined;
  let stage: number | undefined;
  for (const hours of leadHours)
    if (remainingMs <= hours * 3_600_000) stage = stage === undefined ? hours : Math.min(stage, hours);
  return stage;
}

/** Why a server will not renew by itself at expiry, or undefined when it will. */
export function wontRenewBecause(
  autoRenew: boolean,
  balanceCents: number,
  priceCents: number,
): "auto_renew_off" | "balance_short" | undefined {
  if (!autoRenew) return "auto_renew_off";
  if (balanceCents < priceCents) return "balance_short";
  return undefined;
}

export type Renewal = { serverId: number; expiresAt: Date; priceCents: number };

/**
 * An account's shortfall over the renewals due in the window (soonest first, as they will be charged): the
 * first renewal the balance no longer covers names it, with what all of them need together. Undefined when
 * the balance covers them all.
 */
export function renewalShortfall(
  balanceCents: number,
  renewals: Renewal[],
): { first: Renewal; neededCents: number } | undefined {
  const ordered = [...renewals].sort(
    (a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || a.serverId - b.serverId,
  );
  const neededCents = ordered.reduce((sum, renewal) => sum + renewal.priceCents, 0);
  let running = 0;
  for (const renewal of ordered) {
    running += renewal.priceCents;
    if (running > balanceCents) return { first: renewal, neededCents };
  }
  return undefined;
}
