import "server-only";
import { and, eq, gt, sql } from "drizzle-orm";
import { parseUnits } from "viem";
import { ApiError, badRequest, conflict, notFound } from "@/lib/api/errors";
import type { Topup } from "@/lib/api/schemas/topups";
import { db, type Tx } from "@/lib/db/client";
import { depositIndexes, depositPayments, topups } from "@/lib/db/schema";
import { depositAddress } from "@/lib/rails/addresses";
import { formatCoinAmount, unitsOf } from "@/lib/rails/amounts";
import { depositSettings } from "@/lib/rails/deposits/config";
import { depositPaymentUri } from "@/lib/rails/payment-uri";
import { RateUnavailableError } from "@/lib/rails/rates";
import { DEPOSIT_COINS, type DepositCoinCode } from "@/lib/rails/registry";
import { coinUnavailableReason, depositRails } from "@/lib/rails/setup";
import { type RateLimitSpec, rateLimitSettings } from "@/lib/rate-limit/config";
import { now } from "@/lib/util/clock";
import { qrDataUri } from "@/lib/util/qr";
import { quoteUnits, rateToE8 } from "./amounts";
import { topupSettings } from "./config";
import { MAX_PENDING_TOPUPS } from "./limits";
import { presentTopup } from "./present";
import { findOwned, getTopup, isDemoTopup } from "./reads";
import { newTopupRef } from "./ref";

/**
 * A deposit top-up as its owner drives it: created with its own address at a locked rate, cancelled while
 * nothing has arrived, and in demo mode paid by a simulated transfer.
 */

/** The rate to lock: stablecoins on a demo source are at par; anything else asks the rate source. */
async function lockRate(coin: DepositCoinCode): Promise<{ rate: string; source: string }> {
  const { rates } = depositRails();
  try {
    const rate = await rates.usdPerCoin(coin);
    rateToE8(rate);
    return { rate, source: rates.name };
  } catch (error) {
    if (error instanceof RateUnavailableError || error instanceof RangeError) {
      throw new ApiError(
        503,
        "rate_unavailable",
        `No exchange rate for ${coin} right now; retry shortly.`,
        {},
        {
          "Retry-After": "5",
        },
      );
    }
    throw error;
  }
}

/** "168 hours", "1 minute": a window as the refusal names it. */
function windowText(seconds: number): string {
  const [count, unit] =
    seconds % 3600 === 0
      ? [seconds / 3600, "hour"]
      : seconds % 60 === 0
        ? [seconds / 60, "minute"]
        : [seconds, "second"];
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/**
 * Every deposit top-up keeps an address watched for days, whatever becomes of it (cancelled and expired ones
 * wait for late payments), so creations are limited per account over a window, counting every top-up made in
 * it. Counted in the creating transaction, under the account's row lock: it holds across app instances, and
 * a refusal leaves nothing behind (no top-up, no derivation index used). Database time on both sides.
 */
async function refuseBeyondCreationLimit(tx: Tx, accountId: number, { limit, windowSeconds }: RateLimitSpec) {
  const windowStart = sql`now() - ${windowSeconds}::integer * interval '1 second'`;
  const [recent] = await tx
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      // When the oldest of them leaves the window, freeing a place.
      freeInSeconds: sql<number>`ceil(extract(epoch from min(${topups.createdAt}) - ${windowStart}))`.mapWith(
        Number,
      ),
    })
    .from(topups)
    .where(
      and(eq(topups.accountId, accountId), eq(topups.method, "deposit"), gt(topups.createdAt, windowStart)),
    );
  if ((recent?.n ?? 0) < limit) return;
  const retryAfter = Math.max(1, recent?.freeInSeconds ?? windowSeconds);
  throw new ApiError(
    429,
    "too_many_topups",
    `This account has made ${limit} deposit top-ups in the last ${windowText(windowSeconds)}, the most it may; ` +
      `the next one can be made in ${retryAfter} seconds.`,
    {},
    {
      "Retry-After": String(retryAfter),
      "RateLimit-Policy": `"deposit-topups";q=${limit};w=${windowSeconds}`,
      RateLimit: `"deposit-topups";r=0;t=${retryAfter}`,
    },
  );
}

/**
 * Creates a classic-coin top-up: locks the rate, reserves the next derivation index of the coin's key
 * (so addresses stay dense for the operator's wallet), derives the address and the payment QR.
 */
export async function createDepositTopup(
  accountId: number,
  amountCents: number,
  code: DepositCoinCode,
): Promise<Topup> {
  const unavailable = await coinUnavailableReason(code);
  if (unavailable) throw badRequest("coin_unavailable", unavailable);
  const coin = DEPOSIT_COINS[code];
  const { rate, source } = await lockRate(code);
  const rateE8 = rateToE8(rate);
  const units = quoteUnits(amountCents, rateE8, coin.decimals, coin.displayDecimals);
  const watcher = depositRails().watcherFor(coin.network);
  const confirmations =
    depositSettings().confirmationOverrides[code] ??
    (watcher?.demo ? Math.min(2, coin.confirmations) : coin.confirmations);

  const database = await db();
  const row = await database.transaction(async (tx) => {
    await tx.execute(sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`);
    const [open] = await tx
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(topups)
      .where(
        and(eq(topups.accountId, accountId), eq(topups.status, "pending"), eq(topups.method, "deposit")),
      );
    if ((open?.n ?? 0) >= MAX_PENDING_TOPUPS) {
      throw conflict(
        "too_many_pending_topups",
        `An account can have ${MAX_PENDING_TOPUPS} pending top-ups; pay or cancel one first.`,
      );
    }
    await refuseBeyondCreationLimit(tx, accountId, rateLimitSettings().depositTopups);
    const [reserved] = await tx
      .insert(depositIndexes)
      .values({ chain: coin.chain, nextIndex: 1 })
      .onConflictDoUpdate({
        target: depositIndexes.chain,
        set: { nextIndex: sql`${depositIndexes.nextIndex} + 1` },
      })
      .returning({ nextIndex: depositIndexes.nextIndex });
    const index = (reserved?.nextIndex ?? 1) - 1;
    const address = depositAddress(code, index);
    const { decimals, displayDecimals } = unitsOf(code);
    const uri = depositPaymentUri(code, address, formatCoinAmount(units, decimals, displayDecimals), units);
    const [inserted] = await tx
      .insert(topups)
      .values({
        ref: newTopupRef(),
        accountId,
        method: "deposit",
        coin: code,
        network: coin.network,
        amountCents,
        depositAddress: address,
        derivationIndex: index,
        depositUnits: units.toString(),
        rateUsd: rate,
        rateSource: source,
        confirmationsRequired: confirmations,
        paymentUri: uri,
        qrDataUri: await qrDataUri(uri),
        expiresAt: new Date(now().getTime() + topupSettings().expiryMinutes * 60_000),
      })
      .returning();
    return inserted;
  });
  if (!row) throw new Error("top-up insert returned no row");
  const index = row.derivationIndex;
  if (watcher?.prepareAddress && index !== null) {
    // A watcher that must learn the address first (Monero's wallet) does so before anyone pays it; the
    // next poll retries if not.
    await watcher.prepareAddress(index).catch((error: Error) => {
      console.error(`${watcher.name}: could not prepare deposit address ${index}: ${error.message}`);
    });
  }
  return presentTopup(row, [], isDemoTopup(row));
}

/**
 * The owner gives up a pending top-up. Allowed only while nothing has arrived: once a payment is seen the
 * top-up completes or expires on its own. A payment sent anyway later is still credited.
 */
export async function cancelTopup(accountId: number, ref: string): Promise<Topup> {
  const owned = await findOwned(accountId, ref);
  const database = await db();
  await database.transaction(async (tx) => {
    const [row] = await tx.select().from(topups).where(eq(topups.id, owned.id)).for("update");
    if (row?.status !== "pending") {
      throw conflict(
        "topup_not_pending",
        `Top-up ${ref} is ${row?.status ?? "gone"}; only a pending top-up can be cancelled.`,
      );
    }
    const [seen] = await tx
      .select({ id: depositPayments.id })
      .from(depositPayments)
      .where(eq(depositPayments.topupId, row.id))
      .limit(1);
    if (seen) {
      throw conflict(
        "payment_received",
        `A payment to top-up ${ref} has arrived; it completes or expires on its own.`,
      );
    }
    // The quote ends with the cancellation: whatever is paid from now on is a late payment.
    const at = now();
    const expiresAt = row.expiresAt && row.expiresAt < at ? row.expiresAt : at;
    await tx
      .update(topups)
      .set({ status: "cancelled", closedAt: at, expiresAt })
      .where(eq(topups.id, row.id));
  });
  return getTopup(accountId, ref);
}

/**
 * Demo mode only: pretend `amount` (default: exactly what was asked) was sent to the top-up's address.
 * The demo watcher then confirms it one block per poll.
 */
export async function simulateDemoPayment(
  accountId: number,
  ref: string,
  amount: string | undefined,
): Promise<Topup> {
  const { demoWatcher } = depositRails();
  if (!demoWatcher) throw notFound("Not found.");
  const row = await findOwned(accountId, ref);
  if (row.method !== "deposit" || !demoWatcher.networks.includes(row.network)) {
    throw conflict(
      "not_simulated",
      `Payments to ${row.coin} top-ups are read from the real chain here; send a real transfer.`,
    );
  }
  const { decimals } = unitsOf(row.coin);
  let units = BigInt(row.depositUnits);
  if (amount !== undefined) {
    const [, fraction = ""] = amount.split(".");
    if (fraction.length > decimals)
      throw badRequest("invalid_amount", `${row.coin} has ${decimals} decimals at most.`);
    units = parseUnits(amount, decimals);
  }
  if (units <= 0n || units > BigInt(row.depositUnits) * 100n) {
    throw badRequest(
      "invalid_amount",
      "The simulated amount must be positive and at most 100 times the asked amount.",
    );
  }
  await demoWatcher.pay(row.id, row.network, units);
  return getTopup(accountId, ref);
}
