import "server-only";
import { and, asc, eq } from "drizzle-orm";
import { ApiError } from "@/lib/api/errors";
import type { CreateServerRequest } from "@/lib/api/schemas/servers";
import { findLocation, findPlan, priceFor } from "@/lib/catalog/catalog";
import { db, type Tx } from "@/lib/db/client";
import { accounts, heldOrderPayments } from "@/lib/db/schema";
import type { StoredResponse } from "@/lib/idempotency/idempotency";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { lockServerAfterAccount, type Payer } from "@/lib/servers/billing";
import { serverSettings } from "@/lib/servers/config";
import { suspendUnpaidOrder } from "@/lib/servers/held-payments";
import { orderServer } from "@/lib/servers/order";
import { withX402Attempts } from "@/lib/topups/request";
import { checkPaymentToHold, payTopupWithX402 } from "@/lib/topups/x402";
import { formatUsd } from "@/lib/util/cents";
import { now } from "@/lib/util/clock";
import { isShortOfBalance, type Payment, paymentIdentity, withX402Offer } from "./offer";

/**
 * An order paid with x402, settled only once its server answers. When the balance does not cover POST /servers,
 * its 402 also offers the price in x402, valid long enough for the build; the request re-sent with the payment
 * is checked as a settlement would check it (terms, funds, signature, the settler's simulation) and the server
 * ordered with the payment held, not submitted. Once the server is active the background settles it: the
 * top-up credited and the order charged in one transaction (the ledger stays the one record). A build that
 * fails releases it unsubmitted; a payment that cannot be settled (funds moved, authorization expired) leaves
 * the server suspended as an unpaid one.
 */

/** Past the build and the wait for its SSH, time to settle the payment. */
const SETTLE_MARGIN_SECONDS = 300;
/** A client's signing time and clock, against the window it was offered. */
const SIGNING_SLACK_SECONDS = 120;
/** Held payments settled per background pass. */
const SETTLE_BATCH = 10;

/** The validity an order's payment is asked for: the build, the wait for its SSH, and time to settle. */
export function orderPaymentWindowSeconds(): number {
  const settings = serverSettings();
  return Math.min(3600, settings.provisionDelaySeconds + settings.bootTimeoutSeconds + SETTLE_MARGIN_SECONDS);
}

function orderPrice(request: CreateServerRequest): number | undefined {
  const plan = findPlan(request.plan);
  const location = findLocation(request.location);
  return plan && location ? priceFor(plan, location, request.cycle) : undefined;
}

const orderOffer = (request: CreateServerRequest, priceCents: number) => ({
  description: `Order a ${request.plan} server in ${request.location} (${request.cycle}) for ${formatUsd(priceCents)}: settled once the server answers on SSH, never if it is not built`,
  maxTimeoutSeconds: orderPaymentWindowSeconds(),
});

/**
 * POST /servers. Without a payment, an order from the balance (402 with the x402 offer when it is short). With
 * one, the balance is tried first (a payment is never taken when it is not needed), then the payment is checked
 * and held with the order. The payment names the request (it is the order's idempotency key), so sending it
 * again answers the first order.
 */
export async function orderServerPaying(input: {
  payer: Payer;
  request: CreateServerRequest;
  idempotencyKey: string | undefined;
  payment: Payment | null;
  /** The absolute URL of POST /servers, which the x402 offer names as the resource paid for. */
  resource: string;
  /** The client's address: x402 attempts are limited by it beside the account. */
  client: string;
}): Promise<StoredResponse> {
  const { payer, request, payment, resource } = input;
  const priceCents = orderPrice(request);
  const key = payment ? `x402:${paymentIdentity(payment)}` : input.idempotencyKey;
  try {
    return await orderServer(payer, request, key);
  } catch (error) {
    if (!isShortOfBalance(error) || priceCents === undefined) throw error;
    if (!payment) throw withX402Offer(error, priceCents, resource, orderOffer(request, priceCents));
  }
  const offer = orderOffer(request, priceCents);
  const held = await withX402Attempts(payer.accountId, input.client, () =>
    checkPaymentToHold({
      amountCents: priceCents,
      header: payment.header,
      version: payment.version,
      resource,
      offer,
      minValidSeconds: offer.maxTimeoutSeconds - SIGNING_SLACK_SECONDS,
    }),
  );
  return orderServer(payer, request, key, undefined, undefined, {
    ...held,
    amountCents: priceCents,
    version: payment.version,
    payment: payment.header,
    resource,
    maxTimeoutSeconds: offer.maxTimeoutSeconds,
  });
}

type HeldRow = typeof heldOrderPayments.$inferSelect;

let settling: Promise<void> | undefined;
let settleAgain = false;

/**
 * Settles the held payments of orders whose servers answer: on each background pass, and at once when a build
 * makes one due. One run at a time in a process; asked while one runs, it runs once more after it.
 */
export function settleDueOrderPayments(): Promise<void> {
  if (settling) {
    settleAgain = true;
    return settling;
  }
  settling = (async () => {
    do {
      settleAgain = false;
      const database = await db();
      const due = await database
        .select()
        .from(heldOrderPayments)
        .where(eq(heldOrderPayments.state, "due"))
        .orderBy(asc(heldOrderPayments.id))
        .limit(SETTLE_BATCH);
      for (const row of due) await settleHeldOrder(row);
    } while (settleAgain);
  })().finally(() => {
    settling = undefined;
  });
  return settling;
}

/** Outcomes a later pass may still change: the chain away, a settlement sent but not yet seen, a claim held. */
const RETRYABLE: ReadonlySet<string> = new Set([
  "payment_network_unavailable",
  "payment_pending",
  "payment_in_progress",
]);

async function settleHeldOrder(row: HeldRow): Promise<void> {
  let paid: Awaited<ReturnType<typeof payTopupWithX402>>;
  try {
    paid = await payTopupWithX402({
      accountId: row.accountId,
      amountCents: row.amountCents,
      header: row.payment,
      version: row.version,
      resource: row.resource,
      offer: { description: `Order of server ${row.serverId}`, maxTimeoutSeconds: row.maxTimeoutSeconds },
      thenInTx: (tx) => chargeHeldOrder(tx, row),
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (RETRYABLE.has(error.code)) {
      await noteAttempt(row, error.message);
      return;
    }
    await failHeldOrder(row, error.message);
    return;
  }
  // Credited before (200), so without this order's charge (the same authorization sent to POST /topups): the
  // order is charged from the balance that credit went to. A fresh credit (201) was charged in its transaction.
  if (paid.status === 200) await chargeFromBalanceWhileDue(row);
}

/**
 * In the credit's transaction (the account row already locked by it): the order is charged what was just
 * credited, and the payment marked settled. A payment no longer due charges nothing: the credit stays on the
 * balance, so money that reached us is never lost.
 */
async function chargeHeldOrder(tx: Tx, row: HeldRow): Promise<void> {
  const settled = await tx
    .update(heldOrderPayments)
    .set({ state: "settled", reason: null, decidedAt: now() })
    .where(and(eq(heldOrderPayments.id, row.id), eq(heldOrderPayments.state, "due")))
    .returning({ id: heldOrderPayments.id });
  if (settled.length === 0) return;
  await postLedgerEntry(tx, {
    accountId: row.accountId,
    amountCents: -row.amountCents,
    kind: "order",
    reference: `order:server:${row.serverId}`,
    // Paid from the payer's wallet, not the balance: no key's spend cap counts it.
    apiKeyId: null,
  });
}

async function chargeFromBalanceWhileDue(row: HeldRow): Promise<void> {
  const database = await db();
  const short = await database.transaction(async (tx) => {
    const [account] = await tx
      .select({ balanceCents: accounts.balanceCents })
      .from(accounts)
      .where(eq(accounts.id, row.accountId))
      .for("update");
    const [current] = await tx.select().from(heldOrderPayments).where(eq(heldOrderPayments.id, row.id));
    if (current?.state !== "due") return false;
    if ((account?.balanceCents ?? 0) < row.amountCents) return true;
    await chargeHeldOrder(tx, row);
    return false;
  });
  if (short)
    await failHeldOrder(
      row,
      "its authorization was credited as a top-up, and the balance no longer covers the order",
    );
}

async function noteAttempt(row: HeldRow, reason: string): Promise<void> {
  const database = await db();
  await database.update(heldOrderPayments).set({ reason }).where(eq(heldOrderPayments.id, row.id));
}

/** The payment cannot be settled: recorded as failed, and its server suspended as an unpaid one. */
async function failHeldOrder(row: HeldRow, reason: string): Promise<void> {
  const database = await db();
  await database.transaction(async (tx) => {
    const server = await lockServerAfterAccount(tx, row.serverId);
    const failed = await tx
      .update(heldOrderPayments)
      .set({ state: "failed", reason, decidedAt: now() })
      .where(and(eq(heldOrderPayments.id, row.id), eq(heldOrderPayments.state, "due")))
      .returning({ id: heldOrderPayments.id });
    if (failed.length > 0) await suspendUnpaidOrder(tx, server, reason);
  });
}
