import "server-only";
import { randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";
import { and, desc, eq, gt, lt, sql } from "drizzle-orm";
import { parseUnits } from "viem";
import { ApiError, badRequest, conflict, notFound } from "@/lib/api/errors";
import { type Page, type PageRequest, toPage } from "@/lib/api/pagination";
import type { Topup } from "@/lib/api/schemas/topups";
import { config, type RateLimitSpec } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { depositIndexes, depositPayments, topups } from "@/lib/db/schema";
import { firstAhead, reuseUntilWrite } from "@/lib/db/until-write";
import type { Tx } from "@/lib/ledger/ledger";
import { deriveDepositAddress } from "@/lib/rails/deposits/addresses";
import { isSettled, paymentsOf, settleTopups } from "@/lib/rails/deposits/crediting";
import { paymentUri } from "@/lib/rails/deposits/payment-uri";
import { coinUnavailableReason, depositRails } from "@/lib/rails/deposits/setup";
import { MoneroWatcher } from "@/lib/rails/monero/watcher";
import { DEPOSIT_COINS, type DepositCoinCode } from "@/lib/rails/registry";
import { evmHexToTron } from "@/lib/rails/tron/address";
import { now } from "@/lib/util/clock";
import { qrDataUri } from "@/lib/util/qr";
import { RateUnavailableError } from "../rails/rates";
import { formatCoinAmount, quoteUnits, rateToE8 } from "./amounts";
import { MAX_PENDING_TOPUPS } from "./limits";
import { presentTopup, type TopupRow, unitsOf } from "./present";

/** The TRC-20 contract in the payment URI is always in TRON's own `T…` form. */
const tronContract = (address: string) => (address.startsWith("0x") ? evmHexToTron(address) : address);

export const newTopupRef = () => `tp_${base32crockford.encode(randomBytes(15)).toLowerCase()}`;

const isDemoTopup = (row: TopupRow) => depositRails().watcherFor(row.network)?.demo ?? false;

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
  const settings = config();
  const { rate, source } = await lockRate(code);
  const rateE8 = rateToE8(rate);
  const units = quoteUnits(amountCents, rateE8, coin.decimals, coin.displayDecimals);
  const watcher = depositRails().watcherFor(coin.network);
  const confirmations =
    settings.deposits.confirmationOverrides[code] ??
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
    await refuseBeyondCreationLimit(tx, accountId, settings.rateLimits.depositTopups);
    const [reserved] = await tx
      .insert(depositIndexes)
      .values({ chain: coin.chain, nextIndex: 1 })
      .onConflictDoUpdate({
        target: depositIndexes.chain,
        set: { nextIndex: sql`${depositIndexes.nextIndex} + 1` },
      })
      .returning({ nextIndex: depositIndexes.nextIndex });
    const index = (reserved?.nextIndex ?? 1) - 1;
    const address = deriveDepositAddress(
      coin.chain,
      settings.deposits.keys,
      index,
      coin.chain === "bitcoin" || coin.chain === "litecoin"
        ? settings.deposits.utxo[coin.chain].chain
        : "main",
    );
    const { decimals, displayDecimals } = unitsOf(code);
    const amountText = formatCoinAmount(units, decimals, displayDecimals);
    const uri = paymentUri({
      coin: code,
      address,
      amount: amountText,
      amountUnits: units,
      tokenContract:
        coin.token === "usdt-erc20"
          ? settings.deposits.evm.usdtAddress
          : coin.token === "usdt-trc20"
            ? tronContract(settings.deposits.tron.usdtContract)
            : undefined,
      chainId: settings.deposits.evm.chainId,
    });
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
        expiresAt: new Date(now().getTime() + settings.deposits.expiryMinutes * 60_000),
      })
      .returning();
    return inserted;
  });
  if (!row) throw new Error("top-up insert returned no row");
  if (watcher instanceof MoneroWatcher && row.derivationIndex !== null) {
    // The view-only wallet must know the subaddress before anyone pays it; the next poll retries if not.
    await watcher.prepareAddress(row.derivationIndex + 1).catch((error: Error) => {
      console.error(`monero: could not create subaddress ${row.derivationIndex}: ${error.message}`);
    });
  }
  return presentTopup(row, [], isDemoTopup(row));
}

async function findOwned(accountId: number, ref: string): Promise<TopupRow> {
  if (!/^tp_[0-9a-z]{24}$/.test(ref)) throw notFound(`No top-up with ref ${ref}.`);
  const database = await db();
  const [row] = await database
    .select()
    .from(topups)
    .where(and(eq(topups.ref, ref), eq(topups.accountId, accountId)));
  if (!row) throw notFound(`No top-up with ref ${ref}.`);
  return row;
}

/**
 * The top-up as it stands now. Reading settles it first when its payments or the clock call for it,
 * so a poll is what credits a confirmed payment, at most once whatever the number of concurrent polls.
 */
export function getTopup(accountId: number, ref: string): Promise<Topup> {
  return reuseUntilWrite(
    `topup:${accountId}:${ref}`,
    () => loadTopup(accountId, ref),
    staleAtDeadline,
    TOPUP_TABLES,
  );
}

/** What a top-up as presented is read from: reused until one of these is written. */
const TOPUP_TABLES = ["topups", "deposit_payments"];

/** A pending top-up expires at its deadline without any write until the next pass: reuse stops there. */
const staleAtDeadline = (topup: Topup) => firstAhead([topup.expires_at]);

async function loadTopup(accountId: number, ref: string): Promise<Topup> {
  let row = await findOwned(accountId, ref);
  let payments = (await paymentsOf([row.id])).get(row.id) ?? [];
  if (!isSettled(row, payments, now())) {
    await settleTopups([row.id]);
    row = await findOwned(accountId, ref);
    payments = (await paymentsOf([row.id])).get(row.id) ?? [];
  }
  return presentTopup(row, payments, isDemoTopup(row));
}

/** One page of the account's top-ups, newest first. */
export function listTopups(accountId: number, page: PageRequest): Promise<Page<Topup>> {
  const key = `topups:${accountId}:${page.beforeId ?? ""}:${page.limit}`;
  return reuseUntilWrite(
    key,
    async () => {
      const database = await db();
      const rows = await database
        .select()
        .from(topups)
        .where(and(eq(topups.accountId, accountId), page.beforeId ? lt(topups.id, page.beforeId) : undefined))
        .orderBy(desc(topups.id))
        .limit(page.limit + 1);
      const payments = await paymentsOf(rows.slice(0, page.limit).map((row) => row.id));
      return toPage(rows, page.limit, (row) =>
        presentTopup(row, payments.get(row.id) ?? [], isDemoTopup(row)),
      );
    },
    (list) => firstAhead(list.items.map((topup) => topup.expires_at)),
    TOPUP_TABLES,
  );
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
