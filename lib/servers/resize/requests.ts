import "server-only";
import { and, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { badRequest, conflict } from "@/lib/api/errors";
import type { Resize, ResizeQuote, ResizeServerRequest } from "@/lib/api/schemas/resize";
import { findLocation, findPlan, type Plan, priceFor } from "@/lib/catalog/catalog";
import { config } from "@/lib/config/env";
import { type Database, db, type Tx } from "@/lib/db/client";
import { serverResizes, servers } from "@/lib/db/schema";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { centsToUsd } from "@/lib/util/cents";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";
import { deriveSubkey, SUBKEY_LABELS } from "@/lib/util/subkeys";
import { debit, lockFunds, type Payer } from "../billing";
import { serverSettings } from "../config";
import { holdReasonText } from "../holds";
import { refuseWhileBusy, withHostQuota } from "../host-operations";
import { enqueueJob, kickJobs } from "../jobs";
import { lockHost, type Size, sizeFor, usedOn } from "../placement";
import type { ServerRow } from "../present";
import { provisioner } from "../provisioner";
import { type ServerReader, serverPart } from "../reads";
import { inRescue } from "../rescue";
import { lockServer, serverRow } from "../rows";
import { recordSnapshot } from "../snapshots/requests";
import { type ProRata, proRata } from "./pricing";
import { QUOTE_VALID_MS, type QuoteTerms, readQuote, signQuote } from "./quote";
import { downgradePath, resizeTarget, shortfall } from "./rules";

/**
 * Moving a server to another plan: CPU and memory up or down, the disk only grown and only when asked. The
 * price is the difference of the two plans for the paid time left, per second (pricing.ts): an upgrade is
 * charged from the balance in the request's transaction, a downgrade credited in the transaction that records
 * its machine running on the new size. The expiry never moves; renewals cost the new plan's price. A dry run
 * is a signed quote that holds its price for 10 minutes. The machine is changed by a `resize` job (jobs.ts).
 */

type ResizeRow = typeof serverResizes.$inferSelect;

/** The ledger reference of a resize's charge or credit (one or the other), and of its refund. */
export const resizeReference = (resizeId: number) => `resize:${resizeId}`;
export const resizeRefundReference = (resizeId: number) => `refund:resize:${resizeId}`;

/** What the downtime of a resize is expected to be before any has been measured on the host. */
const DEFAULT_DOWNTIME_S = { simulated: 2, machine: 30, machineGrowingDisk: 120 } as const;
/** The estimate is the median of this many of the host's latest resizes. */
const ESTIMATE_SAMPLE = 20;
/** How many resizes GET /servers/{id}/resizes lists. */
const LISTED = 20;

const quoteKey = () =>
  processWide("servers.resize.quote-key", () =>
    deriveSubkey(config().encryptionKey, SUBKEY_LABELS.resizeQuote),
  );

/** A resize as priced: the plan, the size it gives, the new price and the pro-rated amount. */
type Priced = { plan: Plan; size: Size; toPriceCents: number; pricing: ProRata; pricedAt: Date };

/** What a server is resized from: its plan, size and price as they are (or were, for a resize on record). */
type From = Pick<ServerRow, "plan" | "cycle" | "expiresAt" | "priceCents">;

/** An active server, out of rescue mode, can be resized; anything else is 409 saying why. */
function checkResizable(row: ServerRow): void {
  if (row.status !== "active") {
    throw conflict(
      "server_not_active",
      row.heldReason
        ? `Only an active server can be resized. ${holdReasonText(row.heldReason)}`
        : `Only an active server can be resized; this one is ${row.status}.`,
    );
  }
  if (row.rescueState) throw inRescue();
}

/** The plan asked for, the size it gives here, and the price of the move at `at` (409 when the disk forbids it). */
function price(row: ServerRow, request: ResizeServerRequest, at: Date): Priced {
  const plan = findPlan(request.plan);
  if (!plan) throw badRequest("invalid_plan", `Unknown plan ${request.plan}.`);
  const size = resizeTarget({
    current: { plan: row.plan, diskGb: row.diskGb ?? 0 },
    target: plan,
    targetSize: sizeFor(plan),
    growDisk: request.grow_disk,
  });
  const location = findLocation(row.location);
  if (!location) throw new Error(`server ${row.id} is in an unknown location ${row.location}`);
  const toPriceCents = priceFor(plan, location, row.cycle);
  const pricing = proRata({
    oldPriceCents: row.priceCents,
    newPriceCents: toPriceCents,
    cycle: row.cycle,
    expiresAt: row.expiresAt,
    at,
  });
  return { plan, size, toPriceCents, pricing, pricedAt: at };
}

/**
 * The price a quote held, in place of today's, when it is this server's and account's, for the same plan and
 * disk choice, still valid, and the server unchanged since (its plan and expiry).
 */
function quotedPrice(
  priced: Priced,
  row: ServerRow,
  accountId: number,
  request: ResizeServerRequest & { quote_id: string },
  at: Date,
): Priced {
  const terms = readQuote(quoteKey(), request.quote_id);
  if (!terms || terms.accountId !== accountId || terms.serverId !== row.id) {
    throw badRequest("invalid_quote", "Send quote_id as a dry run of this server's resize returned it.");
  }
  if (terms.toPlan !== request.plan || terms.growDisk !== request.grow_disk) {
    throw conflict(
      "quote_mismatch",
      `This quote is for ${terms.toPlan} with grow_disk ${terms.growDisk}: send those, or ask for a new quote.`,
    );
  }
  if (terms.validUntil < at.getTime()) {
    throw conflict(
      "quote_expired",
      `This quote held until ${new Date(terms.validUntil).toISOString()}; ask for a new one (dry_run: true).`,
    );
  }
  if (terms.fromPlan !== row.plan || terms.expiresAt !== row.expiresAt.getTime()) {
    throw conflict(
      "quote_expired",
      "The server changed since this quote (its plan or its paid period); ask for a new one (dry_run: true).",
    );
  }
  return {
    ...priced,
    toPriceCents: terms.toPriceCents,
    pricing: {
      amountCents: terms.amountCents,
      secondsLeft: terms.secondsLeft,
      periodSeconds: terms.periodSeconds,
    },
    pricedAt: new Date(terms.pricedAt),
  };
}

/**
 * Refuses with 409 out_of_capacity, naming what is missing, when the server's host lacks room for what the
 * new size adds (a smaller size always fits). With `lock`, the host's row is locked first, as orders do.
 */
async function checkRoom(tx: Tx | Database, row: ServerRow, plan: Plan, size: Size, lock: boolean) {
  const host = serverSettings().hypervisors.find((candidate) => candidate.name === row.hypervisor);
  if (!host) return;
  const more: Size = {
    memoryMb: Math.max(0, size.memoryMb - (row.memoryMb ?? 0)),
    vcpus: Math.max(0, size.vcpus - (row.vcpus ?? 0)),
    diskGb: Math.max(0, size.diskGb - (row.diskGb ?? 0)),
  };
  if (more.memoryMb === 0 && more.vcpus === 0 && more.diskGb === 0) return;
  const drained = lock ? (await lockHost(tx as Tx, host)).drained : false;
  const missing = drained
    ? "the operator is moving servers off it"
    : shortfall(host, await usedOn(tx, host.name), more);
  if (missing) {
    throw conflict(
      "out_of_capacity",
      `The server's host has no room for ${plan.name} now: ${missing}. Nothing was charged; choose a smaller ` +
        "plan or try later.",
    );
  }
}

/** The median downtime of the host's latest resizes of this kind, or a default until there are some. */
async function downtimeEstimate(database: Database | Tx, hypervisor: string | null, growDisk: boolean) {
  const measured = await database
    .select({ ms: serverResizes.downtimeMs })
    .from(serverResizes)
    .where(
      and(
        eq(serverResizes.state, "done"),
        hypervisor === null ? isNull(serverResizes.hypervisor) : eq(serverResizes.hypervisor, hypervisor),
        eq(serverResizes.growDisk, growDisk),
        isNotNull(serverResizes.downtimeMs),
      ),
    )
    .orderBy(desc(serverResizes.finishedAt))
    .limit(ESTIMATE_SAMPLE);
  const sorted = measured.map((row) => row.ms ?? 0).sort((a, b) => a - b);
  if (sorted.length > 0) return Math.ceil((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) / 1000);
  if (provisioner().simulated) return DEFAULT_DOWNTIME_S.simulated;
  return growDisk ? DEFAULT_DOWNTIME_S.machineGrowingDisk : DEFAULT_DOWNTIME_S.machine;
}

/** The terms every answer about a resize carries: the money, the size, what stays open, the downtime. */
function presentTerms(
  from: From,
  to: { plan: Plan; size: Size; growDisk: boolean; toPriceCents: number },
  pricing: ProRata,
  pricedAt: Date,
  estimateSeconds: number,
) {
  const path = downgradePath(to.plan, to.size.diskGb, (plan) => sizeFor(plan).diskGb);
  return {
    from_plan: from.plan,
    to_plan: to.plan.id,
    direction: (to.toPriceCents >= from.priceCents ? "upgrade" : "downgrade") as "upgrade" | "downgrade",
    grow_disk: to.growDisk,
    memory_mb: to.size.memoryMb,
    vcpus: to.size.vcpus,
    disk_gb: to.size.diskGb,
    charge_usd: centsToUsd(Math.max(0, pricing.amountCents)),
    credit_usd: centsToUsd(Math.max(0, -pricing.amountCents)),
    renewal_price_usd: centsToUsd(to.toPriceCents),
    cycle: from.cycle,
    expires_at: from.expiresAt.toISOString(),
    priced_at: pricedAt.toISOString(),
    seconds_left: pricing.secondsLeft,
    period_seconds: pricing.periodSeconds,
    downtime_estimate_seconds: estimateSeconds,
    downgrade_possible: path.downgradePossible,
    smallest_plan_after: path.smallestPlan,
  };
}

export function presentResize(
  row: ResizeRow,
  server: Pick<ServerRow, "cycle" | "expiresAt">,
  estimateSeconds: number,
): Resize {
  const plan = findPlan(row.toPlan);
  if (!plan) throw new Error(`resize ${row.id} names an unknown plan ${row.toPlan}`);
  const pricing = {
    amountCents: row.amountCents,
    secondsLeft: row.secondsLeft,
    periodSeconds: row.periodSeconds,
  };
  return {
    id: row.id,
    server_id: row.serverId,
    state: row.state,
    ...presentTerms(
      {
        plan: row.fromPlan,
        cycle: server.cycle,
        expiresAt: server.expiresAt,
        priceCents: row.fromPriceCents,
      },
      {
        plan,
        size: { memoryMb: row.toMemoryMb, vcpus: row.toVcpus, diskGb: row.toDiskGb },
        growDisk: row.growDisk,
        toPriceCents: row.toPriceCents,
      },
      pricing,
      row.pricedAt,
      estimateSeconds,
    ),
    snapshot_id: row.snapshotId,
    downtime_seconds: row.downtimeMs === null ? null : Math.round(row.downtimeMs / 100) / 10,
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

/** A dry run: what the resize would cost and change, with a quote whose price holds for 10 minutes. */
async function quoteResize(
  accountId: number,
  serverId: number,
  request: ResizeServerRequest,
): Promise<ResizeQuote> {
  const database = await db();
  const row = await serverRow(serverId, { ownedBy: accountId });
  checkResizable(row);
  const priced = price(row, request, now());
  await checkRoom(database, row, priced.plan, priced.size, false);
  const validUntil = priced.pricedAt.getTime() + QUOTE_VALID_MS;
  const terms: QuoteTerms = {
    serverId: row.id,
    accountId,
    toPlan: priced.plan.id,
    growDisk: request.grow_disk,
    fromPlan: row.plan,
    expiresAt: row.expiresAt.getTime(),
    amountCents: priced.pricing.amountCents,
    toPriceCents: priced.toPriceCents,
    pricedAt: priced.pricedAt.getTime(),
    secondsLeft: priced.pricing.secondsLeft,
    periodSeconds: priced.pricing.periodSeconds,
    validUntil,
  };
  return {
    dry_run: true,
    quote_id: signQuote(quoteKey(), terms),
    quote_expires_at: new Date(validUntil).toISOString(),
    ...presentTerms(
      row,
      { ...priced, growDisk: request.grow_disk },
      priced.pricing,
      priced.pricedAt,
      await downtimeEstimate(database, row.hypervisor, request.grow_disk),
    ),
  };
}

/**
 * Resizes the account's server, or with `dry_run` quotes it. The resize is one transaction: the account and
 * the server locked (in that order), the checks (an active server, not busy, the plan and disk allowed, room
 * on its host: 409 before anything is charged), the price (a valid quote's, else now's), an upgrade's charge
 * (402 with the exact deficit when the balance is short) through the ledger debit orders and renewals use,
 * the server recorded at its new plan, size and price (its room reserved; a failure puts it back), a snapshot
 * recorded when the disk grows, and the job that changes the machine. Answers 202 with the resize; an
 * Idempotency-Key makes a retry answer the same and resize once.
 */
export async function resizeServer(
  payer: Payer,
  serverId: number,
  request: ResizeServerRequest,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const { accountId } = payer;
  if (request.dry_run) return { status: 200, body: await quoteResize(accountId, serverId, request) };
  return withHostQuota(accountId, async () => {
    const response = await withIdempotentTransaction(
      {
        accountId,
        operation: `POST /servers/${serverId}/resize`,
        key: idempotencyKey,
        fingerprint: fingerprint(request),
      },
      (tx) => resizeInTx(tx, payer, serverId, request),
    );
    kickJobs();
    return response;
  });
}

async function resizeInTx(
  tx: Tx,
  payer: Payer,
  serverId: number,
  request: ResizeServerRequest,
): Promise<StoredResponse> {
  const { accountId, apiKeyId } = payer;
  // The account first, then the server: the lock order of every money-moving transaction.
  await lockFunds(tx, accountId, 0);
  const row = await lockServer(tx, serverId, { ownedBy: accountId });
  checkResizable(row);
  await refuseWhileBusy(tx, row.id);
  const at = now();
  let priced = price(row, request, at);
  const { quote_id: quoteId } = request;
  if (quoteId !== undefined)
    priced = quotedPrice(priced, row, accountId, { ...request, quote_id: quoteId }, at);
  await checkRoom(tx, row, priced.plan, priced.size, true);
  const amount = priced.pricing.amountCents;
  if (amount > 0) await lockFunds(tx, accountId, amount, "resizing");
  const [resize] = await tx
    .insert(serverResizes)
    .values({
      serverId: row.id,
      hypervisor: row.hypervisor,
      fromPlan: row.plan,
      toPlan: priced.plan.id,
      fromMemoryMb: row.memoryMb ?? 0,
      fromVcpus: row.vcpus ?? 0,
      fromDiskGb: row.diskGb ?? 0,
      toMemoryMb: priced.size.memoryMb,
      toVcpus: priced.size.vcpus,
      toDiskGb: priced.size.diskGb,
      fromPriceCents: row.priceCents,
      toPriceCents: priced.toPriceCents,
      amountCents: amount,
      growDisk: request.grow_disk,
      wasRunning: row.powerState === "running",
      pricedAt: priced.pricedAt,
      secondsLeft: priced.pricing.secondsLeft,
      periodSeconds: priced.pricing.periodSeconds,
      createdAt: at,
    })
    .returning();
  if (!resize) throw new Error("resize insert returned no row");
  if (amount > 0) {
    // The key that asks pays: its spend cap (and those above it) count the upgrade as they count an order.
    await debit(tx, {
      accountId,
      apiKeyId,
      priceCents: amount,
      kind: "resize",
      reference: resizeReference(resize.id),
    });
  }
  // The server is what it becomes from now on: its host's room is reserved, renewals cost the new price.
  await tx
    .update(servers)
    .set({
      plan: priced.plan.id,
      priceCents: priced.toPriceCents,
      memoryMb: priced.size.memoryMb,
      vcpus: priced.size.vcpus,
      diskGb: priced.size.diskGb,
      statusReason: `Resizing to ${priced.plan.name}: the machine shuts down, takes its new size and starts again.`,
    })
    .where(eq(servers.id, row.id));
  // A copy of the disk at rest before it grows (it counts as one of the server's snapshots, room reserved).
  const snapshot = request.grow_disk ? await recordSnapshot(tx, row, "resize") : undefined;
  const [recorded] = snapshot
    ? await tx
        .update(serverResizes)
        .set({ snapshotId: snapshot.id })
        .where(eq(serverResizes.id, resize.id))
        .returning()
    : [resize];
  await enqueueJob(tx, row.id, "resize", { snapshotId: snapshot?.id });
  return {
    status: 202,
    body: presentResize(
      recorded ?? resize,
      row,
      await downtimeEstimate(tx, row.hypervisor, request.grow_disk),
    ),
  };
}

/** The server's resizes, newest first. */
export async function listResizes(reader: ServerReader, serverId: number): Promise<{ resizes: Resize[] }> {
  // The estimates read other servers' resizes on the same host: the part's name says which host.
  const { row: server, part } = await serverPart(
    reader,
    serverId,
    (row) => `resizes:${row.hypervisor ?? ""}`,
    ["server_resizes"],
    async ({ hypervisor }) => {
      const database = await db();
      const rows = await database
        .select()
        .from(serverResizes)
        .where(eq(serverResizes.serverId, serverId))
        .orderBy(desc(serverResizes.id))
        .limit(LISTED);
      const estimates = new Map<boolean, number>();
      for (const growDisk of [false, true]) {
        if (rows.some((row) => row.growDisk === growDisk)) {
          estimates.set(growDisk, await downtimeEstimate(database, hypervisor, growDisk));
        }
      }
      return { rows, estimates };
    },
  );
  return {
    resizes: part.rows.map((row) => presentResize(row, server, part.estimates.get(row.growDisk) ?? 0)),
  };
}

export type { ResizeRow };
