import "server-only";
import { and, eq, gt, inArray, or, sql } from "drizzle-orm";
import { now } from "@/lib/clock";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { depositPayments, topups } from "@/lib/db/schema";
import type { ObservedPayment } from "./watcher";

export type WatchedAddress = { topupId: number; coin: string; address: string };

/**
 * The deposit top-ups still worth watching: pending ones, and closed ones inside the late-payment window,
 * because a payment that arrives after expiry, cancellation or completion must still be credited.
 */
export function watchedTopups() {
  const windowStart = new Date(now().getTime() - config().deposits.latePaymentWindowHours * 3_600_000);
  return and(
    eq(topups.method, "deposit"),
    or(eq(topups.status, "pending"), gt(topups.closedAt, windowStart)),
  );
}

/** The addresses of the watched top-ups on `networks`. */
export async function watchedAddresses(networks: readonly string[]): Promise<WatchedAddress[]> {
  if (networks.length === 0) return [];
  const database = await db();
  const rows = await database
    .select({ topupId: topups.id, coin: topups.coin, address: topups.depositAddress })
    .from(topups)
    .where(and(watchedTopups(), inArray(topups.network, [...networks])));
  return rows;
}

/** Stores newly seen payments (a payment already known keeps its row) and returns the top-ups touched. */
export async function recordPayments(network: string, payments: ObservedPayment[]): Promise<number[]> {
  if (payments.length === 0) return [];
  const database = await db();
  const inserted = await database
    .insert(depositPayments)
    .values(
      payments.map((payment) => ({
        topupId: payment.topupId,
        network,
        txHash: payment.txHash,
        logIndex: payment.logIndex,
        amountUnits: payment.amountUnits.toString(),
        blockNumber: payment.blockNumber,
        blockHash: payment.blockHash,
        confirmations: payment.confirmations,
      })),
    )
    .onConflictDoNothing()
    .returning({ topupId: depositPayments.topupId });
  return [...new Set(inserted.map((row) => row.topupId))];
}

/** Payments on `network` that have not yet reached their top-up's confirmation target. */
export async function confirmingPayments(network: string) {
  const database = await db();
  return database
    .select({
      id: depositPayments.id,
      topupId: depositPayments.topupId,
      blockNumber: depositPayments.blockNumber,
      blockHash: depositPayments.blockHash,
      confirmations: depositPayments.confirmations,
    })
    .from(depositPayments)
    .innerJoin(topups, eq(topups.id, depositPayments.topupId))
    .where(
      and(
        eq(depositPayments.network, network),
        sql`${depositPayments.confirmations} < ${topups.confirmationsRequired}`,
      ),
    );
}

export async function setConfirmations(paymentId: number, confirmations: number): Promise<void> {
  const database = await db();
  await database.update(depositPayments).set({ confirmations }).where(eq(depositPayments.id, paymentId));
}

/** A payment whose block left the canonical chain is forgotten; the rescan finds it again if re-mined. */
export async function forgetPayment(paymentId: number): Promise<void> {
  const database = await db();
  await database.delete(depositPayments).where(eq(depositPayments.id, paymentId));
}
