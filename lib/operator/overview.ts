import "server-only";
import { and, desc, eq, gt, gte, isNotNull, sql } from "drizzle-orm";
import type { Health } from "@/lib/api/schemas/health";
import { type Database, db } from "@/lib/db/client";
import { accounts, depositPayments, serverJobs, servers, topups } from "@/lib/db/schema";
import { health } from "@/lib/health/health";
import { centsToUsd } from "@/lib/util/cents";
import { hostViews } from "./hosts";
import { flaggedPayments } from "./payments";

export const MONEY_DAYS = 30;
const FAILING_DAYS = 7;

export type Overview = {
  /** Credited top-ups per UTC day and coin over the last MONEY_DAYS days (oldest first, every day listed). */
  money_in: { day: string; coins: Record<string, number>; total_usd: number }[];
  coins: string[];
  /** What the service owes its customers: the sum of balances. */
  balances: { total_usd: number; accounts_holding: number };
  servers: { by_status: Record<string, number>; held: number };
  jobs: {
    failed_recently: number;
    retrying: number;
    latest_failures: {
      id: number;
      server_id: number;
      kind: string;
      attempts: number;
      error: string | null;
      finished_at: string | null;
    }[];
  };
  watchers: Health["watchers"];
  hosts: {
    name: string;
    location: string;
    drained: boolean;
    used: { memory: number; vcpus: number; disk: number };
    libvirt: string;
  }[];
  attention: number;
};

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** The last `days` UTC days, oldest first, ending today. */
export function lastDays(days: number, today: Date): string[] {
  const start = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return Array.from({ length: days }, (_, i) => dayOf(new Date(start - (days - 1 - i) * 86_400_000)));
}

/** Credits per day and coin as chart rows: every day present, missing ones zero. */
export function moneyRows(rows: { day: string; coin: string; cents: number }[], days: string[]) {
  const coins = [...new Set(rows.map((row) => row.coin))].sort();
  const byDay = new Map(days.map((day) => [day, new Map<string, number>()]));
  for (const row of rows)
    byDay.get(row.day)?.set(row.coin, (byDay.get(row.day)?.get(row.coin) ?? 0) + row.cents);
  return {
    coins,
    money_in: days.map((day) => {
      const perCoin = byDay.get(day) ?? new Map<string, number>();
      const total = [...perCoin.values()].reduce((sum, cents) => sum + cents, 0);
      return {
        day,
        coins: Object.fromEntries(coins.map((coin) => [coin, centsToUsd(perCoin.get(coin) ?? 0)])),
        total_usd: centsToUsd(total),
      };
    }),
  };
}

const ratio = (used: number, of: number) => (of > 0 ? Math.round((used / of) * 1000) / 1000 : 0);

/** The one page of the business at a glance. */
export async function overview(database?: Database): Promise<Overview> {
  database ??= await db();
  const now = new Date();
  const days = lastDays(MONEY_DAYS, now);
  const since = new Date(`${days[0]}T00:00:00Z`);
  const failingSince = new Date(now.getTime() - FAILING_DAYS * 86_400_000);
  const [credits, balances, statuses, held, failedCount, retrying, latest, service, hosts, attention] =
    await Promise.all([
      // What payments credited, by the day they counted: the x402 rail's payments are rows here too.
      database
        .select({
          day: sql<string>`to_char(${depositPayments.confirmedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
          coin: topups.coin,
          cents:
            sql<number>`sum(${depositPayments.quoteCents} + coalesce(${depositPayments.extraCents}, 0))`.mapWith(
              Number,
            ),
        })
        .from(depositPayments)
        .innerJoin(topups, eq(topups.id, depositPayments.topupId))
        .where(and(isNotNull(depositPayments.quoteCents), gte(depositPayments.confirmedAt, since)))
        .groupBy(sql`1`, topups.coin),
      database
        .select({
          total: sql<number>`coalesce(sum(${accounts.balanceCents}), 0)`.mapWith(Number),
          holding: sql<number>`count(*) FILTER (WHERE ${accounts.balanceCents} > 0)`.mapWith(Number),
        })
        .from(accounts),
      database
        .select({ status: servers.status, n: sql<number>`count(*)`.mapWith(Number) })
        .from(servers)
        .groupBy(servers.status),
      database
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(servers)
        .where(isNotNull(servers.heldSince)),
      database
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(serverJobs)
        .where(and(eq(serverJobs.state, "failed"), gt(serverJobs.finishedAt, failingSince))),
      database
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(serverJobs)
        .where(and(eq(serverJobs.state, "pending"), isNotNull(serverJobs.lastError))),
      database
        .select()
        .from(serverJobs)
        .where(and(eq(serverJobs.state, "failed"), gt(serverJobs.finishedAt, failingSince)))
        .orderBy(desc(serverJobs.finishedAt))
        .limit(10),
      health(),
      hostViews({}, database),
      flaggedPayments("attention", {}, database),
    ]);
  return {
    ...moneyRows(credits, days),
    balances: { total_usd: centsToUsd(balances[0]?.total ?? 0), accounts_holding: balances[0]?.holding ?? 0 },
    servers: {
      by_status: Object.fromEntries(statuses.map((row) => [row.status, row.n])),
      held: held[0]?.n ?? 0,
    },
    jobs: {
      failed_recently: failedCount[0]?.n ?? 0,
      retrying: retrying[0]?.n ?? 0,
      latest_failures: latest.map((job) => ({
        id: job.id,
        server_id: job.serverId,
        kind: job.kind,
        attempts: job.attempts,
        error: job.lastError,
        finished_at: job.finishedAt?.toISOString() ?? null,
      })),
    },
    watchers: service.watchers,
    hosts: hosts.map((host) => ({
      name: host.name,
      location: host.location,
      drained: host.drained !== null,
      used: {
        memory: ratio(host.sold.memoryMb, host.capacity.memoryMb),
        vcpus: ratio(host.sold.vcpus, host.capacity.vcpus),
        disk: ratio(host.sold.diskGb, host.capacity.diskGb),
      },
      libvirt: host.libvirt.status,
    })),
    attention: attention.length,
  };
}
