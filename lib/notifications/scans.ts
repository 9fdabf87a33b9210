import "server-only";
import { and, eq, gt, inArray, lte, type SQL } from "drizzle-orm";
import { type Database, db } from "@/lib/db/client";
import { accounts, notificationEvents, servers } from "@/lib/db/schema";
import { centsToUsd } from "@/lib/util/cents";
import { now } from "@/lib/util/clock";
import { notificationSettings } from "./config";
import { eventServer } from "./facts";
import { listensTo, recordEvent } from "./record";
import {
  BALANCE_WINDOW_DAYS,
  type Renewal,
  renewalShortfall,
  warningStage,
  wontRenewBecause,
} from "./warnings";

/** Servers looked at per pass by each scan (the soonest first). */
const BATCH = 500;

export const expiringFactKey = (serverId: number, expiresAt: Date, leadHours: number) =>
  `server.expiring:${serverId}:${expiresAt.toISOString()}:${leadHours}`;

/** Of `keys`, those already recorded. */
async function recordedKeys(database: Database, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await database
    .select({ key: notificationEvents.factKey })
    .from(notificationEvents)
    .where(inArray(notificationEvents.factKey, keys));
  return new Set(rows.map((row) => row.key ?? ""));
}

/**
 * Active servers expiring within `withinMs` of `at` (soonest first, a bounded batch) of accounts with an
 * endpoint that takes `type`, with their account's balance.
 */
function activeServersDue(database: Database, at: Date, withinMs: number, type: string, also?: SQL) {
  return database
    .select({ server: servers, balanceCents: accounts.balanceCents })
    .from(servers)
    .innerJoin(accounts, eq(accounts.id, servers.accountId))
    .where(
      and(
        eq(servers.status, "active"),
        gt(servers.expiresAt, at),
        lte(servers.expiresAt, new Date(at.getTime() + withinMs)),
        listensTo(servers.accountId, type),
        also,
      ),
    )
    .orderBy(servers.expiresAt)
    .limit(BATCH);
}

/**
 * `server.expiring`: an active server inside one of its lead times (NOTIFY_EXPIRY_WARNING_HOURS) that will
 * not renew by itself (automatic renewal off, or a balance short of its price) is warned once per lead time
 * and period. Only accounts that listen are looked at.
 */
async function warnExpiring(database: Database, at: Date): Promise<void> {
  const leads = notificationSettings().expiryWarningHours;
  const longest = (leads[0] ?? 0) * 3_600_000;
  if (longest === 0) return;
  const rows = await activeServersDue(database, at, longest, "server.expiring");
  const due = rows.flatMap(({ server, balanceCents }) => {
    const why = wontRenewBecause(server.autoRenew, balanceCents, server.priceCents);
    const stage = warningStage(server.expiresAt.getTime() - at.getTime(), leads);
    return why && stage
      ? [{ server, balanceCents, why, stage, key: expiringFactKey(server.id, server.expiresAt, stage) }]
      : [];
  });
  const known = await recordedKeys(
    database,
    due.map((warning) => warning.key),
  );
  for (const warning of due) {
    if (known.has(warning.key)) continue;
    const { server } = warning;
    await database.transaction((tx) =>
      recordEvent(tx, {
        accountId: server.accountId,
        type: "server.expiring",
        factKey: warning.key,
        data: () => ({
          expires_at: server.expiresAt.toISOString(),
          lead_hours: warning.stage,
          why: warning.why,
          price_usd: centsToUsd(server.priceCents),
          balance_usd: centsToUsd(warning.balanceCents),
          suspends_at: server.expiresAt.toISOString(),
          server: eventServer(server),
        }),
      }),
    );
  }
}

/**
 * `account.balance_low`: the balance does not cover the automatic renewals of active servers due within
 * BALANCE_WINDOW_DAYS. Announced once per renewal it first fails to cover (a top-up that covers it, then a
 * later shortfall, is a new fact).
 */
async function warnLowBalances(database: Database, at: Date): Promise<void> {
  const rows = await activeServersDue(
    database,
    at,
    BALANCE_WINDOW_DAYS * 86_400_000,
    "account.balance_low",
    eq(servers.autoRenew, true),
  );
  const byAccount = new Map<number, { balanceCents: number; rows: (typeof rows)[number]["server"][] }>();
  for (const { server, balanceCents } of rows) {
    const entry = byAccount.get(server.accountId) ?? { balanceCents, rows: [] };
    entry.rows.push(server);
    byAccount.set(server.accountId, entry);
  }
  const shortfalls = [...byAccount].flatMap(([accountId, entry]) => {
    const renewals: Renewal[] = entry.rows.map((row) => ({
      serverId: row.id,
      expiresAt: row.expiresAt,
      priceCents: row.priceCents,
    }));
    const shortfall = renewalShortfall(entry.balanceCents, renewals);
    if (!shortfall) return [];
    const key = `account.balance_low:${accountId}:${shortfall.first.serverId}:${shortfall.first.expiresAt.toISOString()}`;
    return [{ accountId, entry, neededCents: shortfall.neededCents, key }];
  });
  const known = await recordedKeys(
    database,
    shortfalls.map((shortfall) => shortfall.key),
  );
  for (const { accountId, entry, neededCents, key } of shortfalls) {
    if (known.has(key)) continue;
    await database.transaction((tx) =>
      recordEvent(tx, {
        accountId,
        type: "account.balance_low",
        factKey: key,
        data: () => ({
          balance_usd: centsToUsd(entry.balanceCents),
          needed_usd: centsToUsd(neededCents),
          shortfall_usd: centsToUsd(neededCents - entry.balanceCents),
          window_days: BALANCE_WINDOW_DAYS,
          renewals: entry.rows.map((row) => ({
            server: eventServer(row),
            price_usd: centsToUsd(row.priceCents),
            renews_at: row.expiresAt.toISOString(),
          })),
        }),
      }),
    );
  }
}

/** One pass of both warnings (from the background runner, before the lifecycle suspends anything). */
export async function announceDueWarnings(database?: Database, clock: () => Date = now): Promise<void> {
  const target = database ?? (await db());
  await warnExpiring(target, clock());
  await warnLowBalances(target, clock());
}
