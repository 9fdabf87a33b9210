import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { and, asc, countDistinct, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, or } from "drizzle-orm";
import { ApiError, conflict, notFound } from "@/lib/api/errors";
import type { ConsoleTicketBody } from "@/lib/api/schemas/console";
import type { Database, Tx } from "@/lib/db/client";
import { db } from "@/lib/db/client";
import { accounts, apiKeys, consoleSessions, servers } from "@/lib/db/schema";
import { recordConsoleOpened } from "@/lib/notifications/facts";
import { consume, limiters } from "@/lib/rate-limit/limits";
import type { ServerRow } from "@/lib/servers/present";
import { provisioner } from "@/lib/servers/provisioner";
import { now } from "@/lib/util/clock";
import { consoleSettings } from "./config";
import { CLOSE_REASONS, type CloseReason, CONSOLE_PROTOCOL, consoleSocketPath } from "./protocol";

/** Closed sessions are kept this long for the operator's record, then deleted (lib/background/retention.ts). */
export const CONSOLE_SESSION_RETENTION_DAYS = 90;

/**
 * How often the instance holding a session says it still does; one not heard of for STALE_MS is gone.
 * `seen_at` is the system's time, not the business clock tests move: liveness is not a business rule.
 */
export const SEEN_INTERVAL_MS = 10_000;
const STALE_MS = 3 * SEEN_INTERVAL_MS;
const seenNow = () => new Date();

const TICKET_PREFIX = "vpsct_";
const hashTicket = (ticket: string) => createHash("sha256").update(ticket).digest("hex");

/** The WebSocket URL of a server's console at this public origin (http -> ws, https -> wss). */
export function consoleSocketUrl(publicOrigin: string, serverId: number): string {
  const url = new URL(consoleSocketPath(serverId), publicOrigin);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/** Sessions that still count against the limit: an unused ticket not yet expired, or an open session still heard of. */
const stillHeld = (at: Date) =>
  and(
    isNull(consoleSessions.closedAt),
    or(
      and(isNull(consoleSessions.openedAt), gt(consoleSessions.ticketExpiresAt, at)),
      and(
        isNotNull(consoleSessions.openedAt),
        gt(consoleSessions.seenAt, new Date(seenNow().getTime() - STALE_MS)),
      ),
    ),
  );

/**
 * A single-use ticket for a server's console, bound to the account and the server and valid for
 * CONSOLE_TICKET_TTL_SECONDS. Only an active, running server has one. A server's console is one at a time
 * (a newer one ends an older one), so the account's limit counts servers: consoles held or ticketed on
 * other servers. An earlier unused ticket for the same server is withdrawn. The ticket is returned once
 * and stored only as its hash, in the row that records the session for the operator.
 *
 * A console is not a host operation: it changes nothing on the machine and queues no job, so it is neither
 * refused while a power action or password change runs (watching a reboot is what it is for) nor counted
 * against RATE_LIMIT_HOST_OPERATIONS (a customer locked out of SSH must not spend the power buttons' budget
 * on reconnecting). What it costs the host, a virsh and a socat while open, is bounded by the open-console
 * limit above; how often it may cost it (and how often `console.opened` may be announced) by tickets per
 * account (RATE_LIMIT_CONSOLE_TICKETS) and per server (RATE_LIMIT_CONSOLE_TICKETS_SERVER), counted once
 * the server is known to be the account's, and given back when no ticket is issued.
 *
 * The ticket remembers the key (or dashboard session) it was asked with: revoking that closes the console.
 */
export async function issueConsoleTicket(
  accountId: number,
  serverId: number,
  request: { client: string; publicOrigin: string; keyId: number },
): Promise<ConsoleTicketBody> {
  const settings = consoleSettings();
  const ticket = `${TICKET_PREFIX}${randomBytes(32).toString("base64url")}`;
  const database = await db();
  // Whose server it is comes first: another account's requests never spend this server's quota.
  await openableServer(database, accountId, serverId);
  const { consoleTickets, consoleTicketsServer } = limiters();
  const accountKey = `account:${accountId}`;
  const serverKey = `server:${serverId}`;
  await consume(consoleTickets, accountKey);
  try {
    await consume(consoleTicketsServer, serverKey);
  } catch (error) {
    await consoleTickets.refund(accountKey);
    throw error;
  }
  const giveBack = () =>
    Promise.all([consoleTickets.refund(accountKey), consoleTicketsServer.refund(serverKey)]);
  const session = await database
    .transaction(async (tx) => {
      // Account first, as everywhere: concurrent requests of one account count one after another.
      await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
      await openableServer(tx, accountId, serverId);
      const at = now();
      const [held] = await tx
        .select({ servers: countDistinct(consoleSessions.serverId) })
        .from(consoleSessions)
        .where(
          and(
            eq(consoleSessions.accountId, accountId),
            ne(consoleSessions.serverId, serverId),
            stillHeld(at),
          ),
        );
      if ((held?.servers ?? 0) >= settings.maxPerAccount) {
        throw new ApiError(
          429,
          "too_many_consoles",
          `This account has the consoles of ${settings.maxPerAccount} other servers open, the most it may: ` +
            "close one (or let an unused ticket expire) first.",
        );
      }
      await tx
        .update(consoleSessions)
        .set({ closedAt: at, closeReason: "ticket_withdrawn" })
        .where(
          and(
            eq(consoleSessions.accountId, accountId),
            eq(consoleSessions.serverId, serverId),
            isNull(consoleSessions.openedAt),
            isNull(consoleSessions.closedAt),
          ),
        );
      const [row] = await tx
        .insert(consoleSessions)
        .values({
          accountId,
          serverId,
          ticketHash: hashTicket(ticket),
          ticketExpiresAt: new Date(at.getTime() + settings.ticketTtlSeconds * 1000),
          requestedAt: at,
          requestedFrom: request.client,
          keyId: request.keyId,
        })
        .returning();
      if (!row) throw new Error("console session insert returned no row");
      return row;
    })
    .catch(async (error: unknown) => {
      await giveBack();
      throw error;
    });
  return {
    ticket,
    expires_at: session.ticketExpiresAt.toISOString(),
    websocket_url: consoleSocketUrl(request.publicOrigin, serverId),
    protocol: CONSOLE_PROTOCOL,
    session_id: session.id,
    demo: provisioner().simulated,
  };
}

/** The account's server, if a console may be opened on it now (active and running), else the refusal. */
async function openableServer(tx: Tx | Database, accountId: number, serverId: number): Promise<ServerRow> {
  const [server] = await tx
    .select()
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.accountId, accountId)));
  if (!server) throw notFound(`No server with id ${serverId}.`);
  if (server.status !== "active") {
    throw conflict("server_not_active", `A console needs an active server; this one is ${server.status}.`);
  }
  if (server.powerState !== "running") {
    throw conflict("server_stopped", "The server is stopped: start it, then open its console.");
  }
  return server;
}

const invalidTicket = () =>
  new ApiError(
    401,
    "invalid_ticket",
    "The console ticket is unknown, already used, expired or for another server: request a new one.",
  );

export type RedeemedConsole = { sessionId: number; accountId: number; server: ServerRow };

/** Why a ticket was refused at the socket: `unknown` is a guess (counted per address), the rest are not. */
export const isUnknownTicket = (error: unknown) =>
  error instanceof ApiError && error.code === "invalid_ticket";

/**
 * Uses a ticket up: one conditional update, so of two connections presenting it (on any instance) only one
 * wins. The server must still be its account's and active. Nothing touches the host before this succeeds.
 */
export async function redeemConsoleTicket(
  ticket: string,
  serverId: number,
  client: string,
): Promise<RedeemedConsole> {
  if (!ticket.startsWith(TICKET_PREFIX) || ticket.length > 100) throw invalidTicket();
  const database = await db();
  const at = now();
  const session = await database.transaction((tx) => openSession(tx, ticket, serverId, client, at));
  if (!session) throw invalidTicket();
  const [server] = await database
    .select()
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.accountId, session.accountId)));
  if (server?.status !== "active") {
    await recordConsoleClosed(session.id, "server_not_active");
    throw conflict("server_not_active", "The server is no longer active: its console is closed.");
  }
  return { sessionId: session.id, accountId: session.accountId, server };
}

/** The conditional update that uses a ticket up, and the notification that its console opened. */
async function openSession(tx: Tx, ticket: string, serverId: number, client: string, at: Date) {
  const [session] = await tx
    .update(consoleSessions)
    .set({ openedAt: at, openedFrom: client, seenAt: seenNow() })
    .where(
      and(
        eq(consoleSessions.ticketHash, hashTicket(ticket)),
        eq(consoleSessions.serverId, serverId),
        isNull(consoleSessions.openedAt),
        isNull(consoleSessions.closedAt),
        gt(consoleSessions.ticketExpiresAt, at),
      ),
    )
    .returning();
  // Announced once per server in a window, however often its console is opened and closed meanwhile.
  if (session) await recordConsoleOpened(tx, session, consoleSettings().openedEventMinutes);
  return session;
}

/** Records how a session ended; the first reason recorded stands. */
export async function recordConsoleClosed(sessionId: number, reason: CloseReason): Promise<void> {
  const database = await db();
  await database
    .update(consoleSessions)
    .set({ closedAt: now(), closeReason: reason })
    .where(and(eq(consoleSessions.id, sessionId), isNull(consoleSessions.closedAt)));
}

/**
 * The machine's console stream gave its first byte at `at` (the status page's ticket -> first byte time ends
 * here); only the first one is recorded.
 */
export async function recordConsoleFirstByte(sessionId: number, at: Date): Promise<void> {
  const database = await db();
  await database
    .update(consoleSessions)
    .set({ firstByteAt: at })
    .where(and(eq(consoleSessions.id, sessionId), isNull(consoleSessions.firstByteAt)));
}

/** Tells every instance that these sessions are still open here: one statement for all of them. */
export async function markConsolesSeen(sessionIds: number[]): Promise<void> {
  if (sessionIds.length === 0) return;
  const database = await db();
  await database
    .update(consoleSessions)
    .set({ seenAt: seenNow() })
    .where(and(inArray(consoleSessions.id, sessionIds), isNull(consoleSessions.closedAt)));
}

/**
 * Closes the records of sessions whose instance died (not heard of for a while) and of tickets that
 * expired unused, so the operator's record ends every session with a time and a reason.
 */
export async function closeAbandonedConsoles(): Promise<void> {
  const database = await db();
  const at = now();
  await database
    .update(consoleSessions)
    .set({ closedAt: consoleSessions.seenAt, closeReason: "instance_lost" })
    .where(
      and(
        isNull(consoleSessions.closedAt),
        isNotNull(consoleSessions.openedAt),
        lt(consoleSessions.seenAt, new Date(seenNow().getTime() - 2 * STALE_MS)),
      ),
    );
  await database
    .update(consoleSessions)
    .set({ closedAt: consoleSessions.ticketExpiresAt, closeReason: "ticket_expired" })
    .where(
      and(
        isNull(consoleSessions.closedAt),
        isNull(consoleSessions.openedAt),
        lt(consoleSessions.ticketExpiresAt, at),
      ),
    );
}

/** A session to end, and why, as one instance's check of the sessions it holds finds it. */
export type ConsoleToEnd = { sessionId: number; reason: CloseReason };

/**
 * Of the sessions this instance holds, those that must end: closed in the record by someone else (the owner,
 * an operator, on any instance), or opened with a key or dashboard session since revoked or expired.
 */
export async function consolesToEnd(sessionIds: number[]): Promise<ConsoleToEnd[]> {
  if (sessionIds.length === 0) return [];
  const database = await db();
  const rows = await database
    .select({
      id: consoleSessions.id,
      closedAt: consoleSessions.closedAt,
      closeReason: consoleSessions.closeReason,
      keyRevokedAt: apiKeys.revokedAt,
      keyExpiresAt: apiKeys.expiresAt,
    })
    .from(consoleSessions)
    .leftJoin(apiKeys, eq(apiKeys.id, consoleSessions.keyId))
    .where(
      and(
        inArray(consoleSessions.id, sessionIds),
        or(isNotNull(consoleSessions.closedAt), isNotNull(apiKeys.revokedAt), lte(apiKeys.expiresAt, now())),
      ),
    );
  return rows.map((row) => {
    const recorded = row.closedAt ? row.closeReason : null;
    const reason: CloseReason =
      recorded && recorded in CLOSE_REASONS ? (recorded as CloseReason) : recorded ? "ended" : "revoked";
    return { sessionId: row.id, reason };
  });
}

/**
 * Closes every console of the account's server in the record (and withdraws unused tickets), for the
 * gateways to end: returns the sessions that were open.
 */
export async function closeConsolesInRecord(
  accountId: number,
  serverId: number,
  reason: CloseReason,
): Promise<number[]> {
  const database = await db();
  const [server] = await database
    .select({ id: servers.id })
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.accountId, accountId)));
  if (!server) throw notFound(`No server with id ${serverId}.`);
  const closed = await database
    .update(consoleSessions)
    .set({ closedAt: now(), closeReason: reason })
    .where(
      and(
        eq(consoleSessions.accountId, accountId),
        eq(consoleSessions.serverId, serverId),
        isNull(consoleSessions.closedAt),
      ),
    )
    .returning({ id: consoleSessions.id, openedAt: consoleSessions.openedAt });
  return closed.filter((row) => row.openedAt !== null).map((row) => row.id);
}

/**
 * Deletes up to `batch` sessions closed before `before` (oldest first), for the retention pass; returns how
 * many. Open sessions are never deleted.
 */
export async function pruneClosedConsoleSessions(
  database: Database,
  before: Date,
  batch: number,
): Promise<number> {
  const old = database
    .select({ id: consoleSessions.id })
    .from(consoleSessions)
    .where(and(isNotNull(consoleSessions.closedAt), lt(consoleSessions.closedAt, before)))
    .orderBy(asc(consoleSessions.closedAt))
    .limit(batch);
  const deleted = await database
    .delete(consoleSessions)
    .where(inArray(consoleSessions.id, old))
    .returning({ id: consoleSessions.id });
  return deleted.length;
}
