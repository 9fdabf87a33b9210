import "server-only";
import { isIP } from "node:net";
import { and, desc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import { type Database, db } from "@/lib/db/client";
import {
  accounts,
  apiKeys,
  consoleSessions,
  depositPayments,
  ledgerAdjustments,
  ledgerEntries,
  operatorSuspensions,
  operators,
  serverFirewalls,
  servers,
  topups,
  x402Authorizations,
} from "@/lib/db/schema";
import { formatCoinAmount, unitsOf } from "@/lib/rails/amounts";
import { centsToUsd } from "@/lib/util/cents";
import { type PendingAdjustment, pendingAdjustments } from "./adjustments";
import { type FlaggedPayment, flaggedPayments } from "./payments";

/** One account a search found, and what matched. */
export type SearchHit = { account_id: number; matched: string };

const SEARCH_LIMIT = 50;

/**
 * Finds accounts by what an abuse report or a payer names: an account id (or a server id), a server's
 * address (its current one or the last it had), a deposit address, or a transaction id (a deposit payment's
 * or an x402 settlement's), or an x402 payer's address. Hex is compared without case.
 */
export async function searchAccounts(query: string, database?: Database): Promise<SearchHit[]> {
  database ??= await db();
  const q = query.trim();
  if (q === "") return [];
  const hits: SearchHit[] = [];
  const add = (accountId: number, matched: string) => {
    if (!hits.some((hit) => hit.account_id === accountId && hit.matched === matched)) {
      hits.push({ account_id: accountId, matched });
    }
  };
  if (/^\d{1,10}$/.test(q) && Number(q) <= 2_147_483_647) {
    const id = Number(q);
    for (const row of await database.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id))) {
      add(row.id, "account id");
    }
    for (const row of await database
      .select({ accountId: servers.accountId })
      .from(servers)
      .where(eq(servers.id, id))) {
      add(row.accountId, `server ${id}`);
    }
    return hits;
  }
  if (isIP(q)) {
    const rows = await database
      .select({ id: servers.id, accountId: servers.accountId, ip: servers.ip })
      .from(servers)
      .where(or(eq(servers.ip, q), eq(servers.lastIp, q)))
      .orderBy(desc(servers.id))
      .limit(SEARCH_LIMIT);
    for (const row of rows) {
      add(row.accountId, row.ip === q ? `address of server ${row.id}` : `former address of server ${row.id}`);
    }
    return hits;
  }
  const folded = q.toLowerCase();
  const sameText = (column: Parameters<typeof eq>[0]) => or(eq(column, q), sql`lower(${column}) = ${folded}`);
  const [byAddress, byTx, bySettlement] = await Promise.all([
    database
      .select({ accountId: topups.accountId, ref: topups.ref })
      .from(topups)
      .where(sameText(topups.depositAddress))
      .orderBy(desc(topups.id))
      .limit(SEARCH_LIMIT),
    database
      .select({ accountId: topups.accountId, ref: topups.ref })
      .from(depositPayments)
      .innerJoin(topups, eq(topups.id, depositPayments.topupId))
      .where(sameText(depositPayments.txHash))
      .limit(SEARCH_LIMIT),
    database
      .select({ accountId: x402Authorizations.accountId, tx: x402Authorizations.txHash })
      .from(x402Authorizations)
      .where(or(sameText(x402Authorizations.txHash), sameText(x402Authorizations.payer)))
      .limit(SEARCH_LIMIT),
  ]);
  for (const row of byAddress) add(row.accountId, `deposit address of top-up ${row.ref}`);
  for (const row of byTx) add(row.accountId, `transaction of top-up ${row.ref}`);
  for (const row of bySettlement)
    add(row.accountId, row.tx && row.tx.toLowerCase() === folded ? "x402 settlement" : "x402 payer");
  return hits.slice(0, SEARCH_LIMIT);
}

export type AccountDetail = {
  id: number;
  balance_usd: number;
  created_at: string;
  totp_enabled: boolean;
  suspension: { id: number; reason: string; since: string; by: string; pauses_period: boolean } | null;
  ledger: {
    id: number;
    at: string;
    kind: string;
    amount_usd: number;
    balance_after_usd: number;
    reference: string;
    reason: string | null;
  }[];
  topups: {
    ref: string;
    status: string;
    method: string;
    coin: string;
    amount_usd: number;
    credited_usd: number;
    deposit_address: string;
    created_at: string;
    payments: { tx_hash: string; amount: string; confirmations: number }[];
  }[];
  servers: {
    id: number;
    hostname: string;
    status: string;
    status_reason: string | null;
    plan: string;
    location: string;
    hypervisor: string | null;
    ip: string | null;
    expires_at: string;
    held: { since: string; reason: string; pauses_period: boolean; by_account: boolean } | null;
    suspension_id: number | null;
    /** Outbound mail (tcp 25): blocked unless an operator opened it. */
    smtp: "open" | "blocked";
    ipv6_prefix: string | null;
  }[];
  sessions: {
    id: number;
    kind: string;
    created_at: string;
    last_used_at: string | null;
    expires_at: string | null;
  }[];
  consoles: {
    id: number;
    server_id: number;
    requested_at: string;
    from: string;
    opened_at: string | null;
    closed_at: string | null;
    close_reason: string | null;
  }[];
  flagged_payments: FlaggedPayment[];
  /** Adjustments of this account past their operator's daily cap: waiting for, or decided by, a second admin. */
  adjustment_approvals: PendingAdjustment[];
};

const LEDGER_ROWS = 100;
const TOPUP_ROWS = 50;

/** Everything about one account an operator needs to judge a report: money, servers, sessions, flags. */
export async function accountDetail(accountId: number, database?: Database): Promise<AccountDetail> {
  database ??= await db();
  const [account] = await database.select().from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound(`No account with id ${accountId}.`);
  const [ledger, topupRows, serverRows, openSuspensions, sessionRows, consoleRows, flagged, approvals] =
    await Promise.all([
      database
        .select({ entry: ledgerEntries, reason: ledgerAdjustments.reason, operator: operators.name })
        .from(ledgerEntries)
        .leftJoin(ledgerAdjustments, eq(ledgerAdjustments.reference, ledgerEntries.reference))
        .leftJoin(operators, eq(operators.id, ledgerAdjustments.operatorId))
        .where(eq(ledgerEntries.accountId, accountId))
        .orderBy(desc(ledgerEntries.id))
        .limit(LEDGER_ROWS),
      database
        .select()
        .from(topups)
        .where(eq(topups.accountId, accountId))
        .orderBy(desc(topups.id))
        .limit(TOPUP_ROWS),
      database.select().from(servers).where(eq(servers.accountId, accountId)).orderBy(desc(servers.id)),
      database
        .select({ suspension: operatorSuspensions, by: operators.name })
        .from(operatorSuspensions)
        .innerJoin(operators, eq(operators.id, operatorSuspensions.createdBy))
        .where(and(eq(operatorSuspensions.accountId, accountId), isNull(operatorSuspensions.liftedAt))),
      database
        .select()
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.accountId, accountId),
            isNull(apiKeys.revokedAt),
            or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, new Date())),
          ),
        )
        .orderBy(desc(apiKeys.id)),
      database
        .select()
        .from(consoleSessions)
        .where(eq(consoleSessions.accountId, accountId))
        .orderBy(desc(consoleSessions.id))
        .limit(20),
      Promise.all([
        flaggedPayments("attention", { accountId }, database),
        flaggedPayments("reviewed", { accountId }, database),
      ]).then(([open, done]) => [...open, ...done]),
      pendingAdjustments({ accountId }, database),
    ]);
  const payments =
    topupRows.length === 0
      ? []
      : await database
          .select()
          .from(depositPayments)
          .where(
            inArray(
              depositPayments.topupId,
              topupRows.map((row) => row.id),
            ),
          )
          .orderBy(depositPayments.id);
  const accountHold = openSuspensions.find((row) => row.suspension.serverId === null);
  const mailOpen = new Set(
    serverRows.length === 0
      ? []
      : (
          await database
            .select({ serverId: serverFirewalls.serverId })
            .from(serverFirewalls)
            .where(
              and(
                inArray(
                  serverFirewalls.serverId,
                  serverRows.map((row) => row.id),
                ),
                eq(serverFirewalls.smtpOpen, true),
              ),
            )
        ).map((row) => row.serverId),
  );
  const serverHolds = new Map(
    openSuspensions
      .filter((row) => row.suspension.serverId !== null)
      .map((row) => [row.suspension.serverId as number, row.suspension]),
  );
  return {
    id: account.id,
    balance_usd: centsToUsd(account.balanceCents),
    created_at: account.createdAt.toISOString(),
    totp_enabled: account.totpEnabled,
    suspension: accountHold
      ? {
          id: accountHold.suspension.id,
          reason: accountHold.suspension.reason,
          since: accountHold.suspension.createdAt.toISOString(),
          by: accountHold.by,
          pauses_period: accountHold.suspension.pausesPeriod,
        }
      : null,
    ledger: ledger.map(({ entry, reason, operator }) => ({
      id: entry.id,
      at: entry.createdAt.toISOString(),
      kind: entry.kind,
      amount_usd: centsToUsd(entry.amountCents),
      balance_after_usd: centsToUsd(entry.balanceAfterCents),
      reference: entry.reference,
      reason: reason ? `${reason} (${operator})` : null,
    })),
    topups: topupRows.map((row) => {
      const { decimals, displayDecimals } = unitsOf(row.coin);
      return {
        ref: row.ref,
        status: row.status,
        method: row.method,
        coin: row.coin,
        amount_usd: centsToUsd(row.amountCents),
        credited_usd: centsToUsd(row.creditedCents),
        deposit_address: row.depositAddress,
        created_at: row.createdAt.toISOString(),
        payments: payments
          .filter((payment) => payment.topupId === row.id)
          .map((payment) => ({
            tx_hash: payment.txHash,
            amount: formatCoinAmount(BigInt(payment.amountUnits), decimals, displayDecimals),
            confirmations: payment.confirmations,
          })),
      };
    }),
    servers: serverRows.map((row) => ({
      id: row.id,
      hostname: row.hostname,
      status: row.status,
      status_reason: row.statusReason,
      plan: row.plan,
      location: row.location,
      hypervisor: row.hypervisor,
      ip: row.ip,
      expires_at: row.expiresAt.toISOString(),
      held: row.heldSince
        ? {
            since: row.heldSince.toISOString(),
            reason: row.heldReason ?? "",
            pauses_period: row.heldPausesPeriod ?? true,
            by_account: !serverHolds.has(row.id),
          }
        : null,
      suspension_id: serverHolds.get(row.id)?.id ?? null,
      smtp: mailOpen.has(row.id) ? ("open" as const) : ("blocked" as const),
      ipv6_prefix: row.ipv6Prefix,
    })),
    sessions: sessionRows.map((row) => ({
      id: row.id,
      kind: row.kind,
      created_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
      expires_at: row.expiresAt?.toISOString() ?? null,
    })),
    consoles: consoleRows.map((row) => ({
      id: row.id,
      server_id: row.serverId,
      requested_at: row.requestedAt.toISOString(),
      from: row.requestedFrom,
      opened_at: row.openedAt?.toISOString() ?? null,
      closed_at: row.closedAt?.toISOString() ?? null,
      close_reason: row.closeReason,
    })),
    flagged_payments: flagged,
    adjustment_approvals: approvals,
  };
}
