import "server-only";
import { createHmac } from "node:crypto";
import { and, desc, eq, lt } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import { ApiError, badRequest, conflict, notFound } from "@/lib/api/errors";
import { type Page, type PageRequest, toPage } from "@/lib/api/pagination";
import type { CreateServerRequest, Server, ServerCreated } from "@/lib/api/schemas/servers";
import { VALIDATION_MESSAGES } from "@/lib/api/validation-messages";
import { findLocation, findOs, findPlan, priceFor } from "@/lib/catalog/catalog";
import { config } from "@/lib/config/env";
import { type Database, db, type Tx } from "@/lib/db/client";
import { accounts, servers } from "@/lib/db/schema";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { serverSettings } from "@/lib/servers/config";
import { centsToUsd, formatUsd } from "@/lib/util/cents";
import { now } from "@/lib/util/clock";
import { addCycle } from "./cycle";
import { refuseWhileBusy, withHostQuota } from "./host-operations";
import { defaultHostname, isValidHostname } from "./hostname";
import { enqueueJob, kickJobs, runJobNow } from "./jobs";
import { presentServers, presentServerWithTraffic } from "./metrics/traffic";
import { placeServer, sizeFor } from "./placement";
import type { ServerRow } from "./present";
import { type PowerAction, provisioner, reserveForwardedPort } from "./provisioner";
import { cachedServerRead } from "./read-cache";
import { NOT_IN_RESCUE, rescuePasswordOf } from "./rescue";
import { prepareRevival, retainLastDisk, revivalReference } from "./retention";
import { decryptRootPassword, encryptRootPassword, generateRootPassword } from "./secrets";
import { normalizeSshKeys } from "./ssh-keys";

/** 402 with the spec's fields: what it costs, what there is, and what is missing, all in USD. */
export function insufficientBalance(priceCents: number, balanceCents: number): ApiError {
  const deficit = priceCents - balanceCents;
  return new ApiError(
    402,
    "insufficient_balance",
    `Top up your balance before ordering: ${formatUsd(deficit)} more is needed (price ${formatUsd(priceCents)}, balance ${formatUsd(balanceCents)}).`,
    { price: centsToUsd(priceCents), balance: centsToUsd(balanceCents), deficit: centsToUsd(deficit) },
  );
}

/**
 * Locks the account row and checks it can pay `priceCents`, or throws 402 with the deficit. Lock order
 * everywhere is account, then server: the account must be locked before any row that references it is
 * inserted (that takes a key-share lock, and two transactions upgrading it would deadlock).
 */
async function lockFunds(tx: Tx, accountId: number, priceCents: number): Promise<void> {
  const [account] = await tx
    .select({ balanceCents: accounts.balanceCents })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .for("update");
  const balance = account?.balanceCents ?? 0;
  if (balance < priceCents) throw insufficientBalance(priceCents, balance);
}

/** Debits the (already locked) account with its ledger row; a reference already posted is refused. */
async function debit(
  tx: Tx,
  accountId: number,
  priceCents: number,
  kind: "order" | "renewal",
  reference: string,
) {
  const posted = await postLedgerEntry(tx, { accountId, amountCents: -priceCents, kind, reference });
  if (!posted.posted) throw conflict("already_charged", "This charge was already made.");
}

/**
 * Orders a server: validates against the catalog, then in ONE transaction locks the account, checks the
 * balance, inserts the server, stores its encrypted password and debits the price with its ledger row. The
 * account lock serialises concurrent orders, and the balance CHECK would refuse an overdraft anyway.
 * `database` and `clock` default to the process ones; the job worker is kicked only for the process database.
 */
export async function orderServer(
  accountId: number,
  request: CreateServerRequest,
  idempotencyKey: string | undefined,
  database?: Database,
  clock: () => Date = now,
): Promise<StoredResponse> {
  const plan = findPlan(request.plan);
  const location = findLocation(request.location);
  if (!plan) throw badRequest("invalid_plan", `Unknown plan ${request.plan}.`);
  if (!location) throw badRequest("invalid_location", `Unknown location ${request.location}.`);
  if (request.hostname !== undefined && !isValidHostname(request.hostname)) {
    throw badRequest("invalid_hostname", VALIDATION_MESSAGES.invalid_hostname);
  }
  if (!findOs(request.os) || !provisioner().imageAvailable(request.os)) {
    throw conflict("os_unavailable", `${request.os} cannot be installed here right now; choose another OS.`);
  }
  const sshKeys = normalizeSshKeys(request.ssh_keys ?? []);
  const priceCents = priceFor(plan, location, request.cycle);
  const settings = config();
  const size = sizeFor(plan);
  const response = await withIdempotentTransaction(
    {
      accountId,
      operation: "POST /servers",
      key: idempotencyKey,
      // A chosen password enters the stored fingerprint only as a keyed hash, never guessable offline.
      fingerprint: fingerprint({
        ...request,
        root_password:
          request.root_password === undefined
            ? null
            : createHmac("sha256", settings.requestFingerprintKey)
                .update(request.root_password)
                .digest("hex"),
      }),
    },
    async (tx) => {
      await lockFunds(tx, accountId, priceCents);
      // Placed before anything is charged: no room (nor a forwarded port) means 409 and an unchanged balance.
      const hypervisor = await placeServer(tx, location.id, size);
      const forwarded = await reserveForwardedPort(tx, location.id, hypervisor);
      const created = clock();
      const [row] = await tx
        .insert(servers)
        .values({
          accountId,
          plan: plan.id,
          location: location.id,
          os: request.os,
          hostname: request.hostname?.toLowerCase() ?? defaultHostname(plan.id, location.id),
          cycle: request.cycle,
          autoRenew: request.auto_renew,
          priceCents,
          createdAt: created,
          expiresAt: addCycle(created, request.cycle),
          hypervisor: hypervisor ?? null,
          memoryMb: size.memoryMb,
          vcpus: size.vcpus,
          diskGb: size.diskGb,
          sshKeys: sshKeys.length > 0 ? JSON.stringify(sshKeys) : null,
          ...forwarded,
        })
        .returning();
      if (!row) throw new Error("server insert returned no row");
      // The simulated build takes PROVISION_DELAY_SECONDS; a real one starts at once.
      const delayMs = provisioner().simulated ? serverSettings().provisionDelaySeconds * 1000 : 0;
      await enqueueJob(tx, row.id, "provision", { runAfter: new Date(created.getTime() + delayMs) });
      await debit(tx, accountId, priceCents, "order", `order:server:${row.id}`);
      const password = request.root_password ?? generateRootPassword();
      const [stored] = await tx
        .update(servers)
        .set({ rootPasswordEnc: encryptRootPassword(settings.encryptionKey, row.id, password) })
        .where(eq(servers.id, row.id))
        .returning();
      if (!stored) throw new Error("server update returned no row");
      // The stored (replayable) answer never holds the password: a replay omits it; /credentials has it.
      const body: ServerCreated = await presentServerWithTraffic(tx, stored);
      return {
        status: 201,
        body,
        unstored: request.root_password === undefined ? { root_password: password } : undefined,
      };
    },
    database,
  );
  if (database === undefined) kickJobs();
  return response;
}

export async function freshOwnedRow(accountId: number, serverId: number): Promise<ServerRow> {
  const database = await db();
  const [row] = await database
    .select()
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.accountId, accountId)));
  if (!row) throw notFound(`No server with id ${serverId}.`);
  return row;
}

/** Whose servers a read is for, and their revision as authentication read it (see read-cache.ts). */
export type ServerReader = { accountId: number; serversRevision: number };

export const serverReader = (auth: AuthContext): ServerReader => ({
  accountId: auth.accountId,
  serversRevision: auth.account.serversRevision,
});

export function ownedRow(reader: ServerReader, serverId: number): Promise<ServerRow> {
  const { accountId, serversRevision } = reader;
  return cachedServerRead(accountId, serversRevision, `row:${serverId}`, () =>
    freshOwnedRow(accountId, serverId),
  );
}

/** One page of the account's servers, newest first, terminated ones included. */
export async function listServers(reader: ServerReader, page: PageRequest): Promise<Page<Server>> {
  const { accountId, serversRevision } = reader;
  // The rows are cached by revision; traffic moves without one, so it is read for every answer.
  const rows = await cachedServerRead(
    accountId,
    serversRevision,
    `page:${page.beforeId ?? ""}:${page.limit}`,
    async () => {
      const database = await db();
      return database
        .select()
        .from(servers)
        .where(
          and(eq(servers.accountId, accountId), page.beforeId ? lt(servers.id, page.beforeId) : undefined),
        )
        .orderBy(desc(servers.id))
        .limit(page.limit + 1);
    },
  );
  const rowPage = toPage(rows, page.limit, (row) => row);
  return { ...rowPage, items: await presentServers(await db(), rowPage.items) };
}

export async function getServer(reader: ServerReader, serverId: number): Promise<Server> {
  return presentServerWithTraffic(await db(), await ownedRow(reader, serverId));
}

/**
 * The root login, decrypted on request, with the rescue system's temporary password while it runs.
 * Terminated servers have none (a lapsed one's is kept sealed for its return, but not shown).
 */
export async function getCredentials(reader: ServerReader, serverId: number) {
  const row = await ownedRow(reader, serverId);
  if (row.status === "terminated" || !row.rootPasswordEnc) {
    throw conflict("server_terminated", "This server is terminated; its credentials are gone.");
  }
  return {
    username: "root" as const,
    password: decryptRootPassword(config().encryptionKey, row.id, row.rootPasswordEnc),
    rescue_password: rescuePasswordOf(row),
  };
}

/** The account's server, locked FOR UPDATE in `tx`; another account's id is 404. */
export async function lockOwnedServer(tx: Tx, accountId: number, serverId: number): Promise<ServerRow> {
  const [row] = await tx
    .select()
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.accountId, accountId)))
    .for("update");
  if (!row) throw notFound(`No server with id ${serverId}.`);
  return row;
}

/** Runs `change` on the account's server locked FOR UPDATE, and returns the server as it ends up. */
async function withLockedServer<T>(
  accountId: number,
  serverId: number,
  change: (tx: Tx, row: ServerRow) => Promise<T>,
): Promise<T> {
  const database = await db();
  return database.transaction(async (tx) => change(tx, await lockOwnedServer(tx, accountId, serverId)));
}

/**
 * Pays one more cycle from the balance. The new period starts at the old expiry, or now for a suspended
 * server (the time it was off is not billed). A suspended server comes back to `active`.
 * The ledger reference names the period, so one period is never charged twice.
 */
export async function renewInTx(tx: Tx, row: ServerRow, current: Date = now()): Promise<ServerRow> {
  const start = new Date(Math.max(row.expiresAt.getTime(), current.getTime()));
  await lockFunds(tx, row.accountId, row.priceCents);
  await debit(
    tx,
    row.accountId,
    row.priceCents,
    "renewal",
    `renewal:server:${row.id}:${row.expiresAt.toISOString()}`,
  );
  const [renewed] = await tx
    .update(servers)
    .set({
      expiresAt: addCycle(start, row.cycle),
      ...(row.status === "suspended" ? { status: "active", suspendedAt: null, powerState: "running" } : {}),
    })
    .where(eq(servers.id, row.id))
    .returning();
  if (!renewed) throw new Error("server update returned no row");
  if (row.status === "suspended") await enqueueJob(tx, row.id, "power", { action: "start" });
  return renewed;
}

export async function renewServer(accountId: number, serverId: number, idempotencyKey: string | undefined) {
  const response = await withIdempotentTransaction(
    {
      accountId,
      operation: `POST /servers/${serverId}/renew`,
      key: idempotencyKey,
      fingerprint: fingerprint({}),
    },
    async (tx) => {
      const row = await lockOwnedServer(tx, accountId, serverId);
      const renewed = row.status === "terminated" ? await reviveInTx(tx, row) : await renewInTx(tx, row);
      return { status: 200, body: await presentServerWithTraffic(tx, renewed) };
    },
  );
  kickJobs();
  return response;
}

/**
 * Renews a server terminated because its period lapsed, while its last disk is kept: one cycle is charged
 * and the server comes back on that disk (see retention.ts); its new period starts once it runs again.
 * A revival that fails for good refunds this charge.
 */
export async function reviveInTx(tx: Tx, row: ServerRow): Promise<ServerRow> {
  await lockFunds(tx, row.accountId, row.priceCents);
  const revival = await prepareRevival(tx, row);
  await debit(tx, row.accountId, row.priceCents, "renewal", revivalReference(row.id, revival.jobId));
  return revival.row;
}

export async function setAutoRenew(accountId: number, serverId: number, autoRenew: boolean): Promise<Server> {
  return withLockedServer(accountId, serverId, async (tx, row) => {
    if (row.status === "terminated") throw conflict("server_terminated", "This server is terminated.");
    const [updated] = await tx.update(servers).set({ autoRenew }).where(eq(servers.id, row.id)).returning();
    return presentServerWithTraffic(tx, updated ?? row);
  });
}

/**
 * Records the power action as a job, then performs it outside the transaction (or waits for the worker
 * that took it). The answer shows the state the host reported, or the last known one while the action is
 * still running (a guest slow to shut down is forced off after SERVER_STOP_TIMEOUT_SECONDS). A server with
 * host work in flight refuses with 409 server_busy, and the account's host-operation limit applies.
 */
export function powerAction(accountId: number, serverId: number, action: PowerAction): Promise<Server> {
  return withHostQuota(accountId, async () => {
    const jobId = await withLockedServer(accountId, serverId, async (tx, row) => {
      if (row.status !== "active") {
        throw conflict(
          "server_not_active",
          `Power actions need an active server; this one is ${row.status}.`,
        );
      }
      await refuseWhileBusy(tx, row.id);
      return enqueueJob(tx, row.id, "power", { action });
    });
    await runJobNow(jobId, (serverSettings().stopTimeoutSeconds + 30) * 1000);
    return presentServerWithTraffic(await db(), await freshOwnedRow(accountId, serverId));
  });
}

/**
 * The owner ends the server now: destroyed with its snapshots (then its address released), no refund of the
 * unused time.
 */
export async function terminateServer(accountId: number, serverId: number): Promise<Server> {
  const server = await withLockedServer(accountId, serverId, async (tx, row) => {
    if (row.status === "terminated")
      throw conflict("server_terminated", "This server is already terminated.");
    return presentServerWithTraffic(tx, await terminateInTx(tx, row));
  });
  kickJobs();
  return server;
}

/**
 * Ends the server in the caller's transaction: capacity and credentials released at once; the machine itself
 * is removed by a destroy job after commit, and its address is released only when that has succeeded.
 * `keepLastDisk` (a lapsed period): the disk is kept for the retention period, and the server can come back.
 */
export async function terminateInTx(
  tx: Tx,
  row: ServerRow,
  current: Date = now(),
  options: { keepLastDisk?: boolean } = {},
): Promise<ServerRow> {
  const retention = options.keepLastDisk
    ? await retainLastDisk(tx, row, current)
    : { retainedUntil: null, rootPasswordEnc: null };
  const [updated] = await tx
    .update(servers)
    .set({ ...NOT_IN_RESCUE, status: "terminated", terminatedAt: current, powerState: null, ...retention })
    .where(eq(servers.id, row.id))
    .returning();
  if (!updated) throw new Error("server update returned no row");
  await enqueueJob(tx, row.id, "destroy");
  return updated;
}
