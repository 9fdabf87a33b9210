import "server-only";
import type { Topup, TopupPayment } from "@/lib/api/schemas/topups";
import type { depositPayments, topups } from "@/lib/db/schema";
import { formatCoinAmount, unitsOf } from "@/lib/rails/amounts";
import { explorerTxUrl } from "@/lib/rails/setup";
import { centsToUsd } from "@/lib/util/cents";

export type TopupRow = typeof topups.$inferSelect;
export type PaymentRow = typeof depositPayments.$inferSelect;

/**
 * Sums of what arrived: confirmed enough, and still confirming (a dropped transaction is not arriving, and a
 * payment an operator's adjustment settled was paid outside the top-up).
 */
export function paymentTotals(row: TopupRow, payments: PaymentRow[]) {
  let confirmed = 0n;
  let unconfirmed = 0n;
  for (const payment of payments) {
    if (payment.settledBy !== null) continue;
    if (payment.droppedAt && payment.confirmations === 0) continue;
    if (payment.confirmations >= row.confirmationsRequired) confirmed += BigInt(payment.amountUnits);
    else unconfirmed += BigInt(payment.amountUnits);
  }
  return { confirmed, unconfirmed };
}

/** The payment on the coin's public explorer, when one is configured and the payment is real. */
function explorerUrl(coin: string, txHash: string): string | null {
  const template = explorerTxUrl(coin);
  if (!template || !/^(0x)?[0-9a-fA-F]{64}$/.test(txHash)) return null;
  return template.replace("{tx}", txHash);
}

/** "97000.00000000" -> "97000", "1.00020000" -> "1.0002" (numeric columns keep their full scale). */
const trimDecimal = (value: string) =>
  value.includes(".") ? value.replace(/0+$/, "").replace(/\.$/, "") : value;

/**
 * What a payment credited, part by part: the units that paid the asked amount, at the quote, and the rest,
 * beyond the asked amount (`excess`) or paid after the quote ended (`late`), at the rate it was valued at.
 */
function creditedParts(
  row: TopupRow,
  payment: PaymentRow,
  format: (units: bigint) => string,
): TopupPayment["credited_parts"] {
  if (payment.quoteCents === null) return [];
  const quoteUnits = BigInt(payment.quoteUnits ?? 0);
  const extraUnits = BigInt(payment.amountUnits) - quoteUnits;
  const parts: TopupPayment["credited_parts"] = [];
  if (quoteUnits > 0n) {
    parts.push({
      kind: "quote",
      amount: format(quoteUnits),
      rate_usd: trimDecimal(row.rateUsd),
      usd: centsToUsd(payment.quoteCents),
    });
  }
  if (extraUnits > 0n && payment.extraRateUsd !== null) {
    const withinQuote = row.expiresAt !== null && payment.seenAt < row.expiresAt;
    parts.push({
      kind: withinQuote ? "excess" : "late",
      amount: format(extraUnits),
      rate_usd: trimDecimal(payment.extraRateUsd),
      usd: centsToUsd(payment.extraCents ?? 0),
    });
  }
  return parts;
}

export function presentTopup(row: TopupRow, payments: PaymentRow[], demo: boolean): Topup {
  const { decimals, displayDecimals, depositCoin } = unitsOf(row.coin);
  const format = (units: bigint) => formatCoinAmount(units, decimals, displayDecimals);
  const { confirmed, unconfirmed } = paymentTotals(row, payments);
  return {
    ref: row.ref,
    status: row.status,
    amount_usd: centsToUsd(row.amountCents),
    coin: row.coin,
    deposit_address: row.depositAddress,
    deposit_amount: format(BigInt(row.depositUnits)),
    deposit_coin: depositCoin,
    deposit_network: row.network,
    qr_data_uri: row.qrDataUri,
    expires_at: row.expiresAt?.toISOString() ?? null,
    payment_uri: row.paymentUri,
    rate_usd: trimDecimal(row.rateUsd),
    rate_source: row.rateSource,
    confirmations_required: row.confirmationsRequired,
    received_amount: format(confirmed + unconfirmed),
    confirmed_amount: format(confirmed),
    credited_usd: centsToUsd(row.creditedCents),
    payments: payments.map((payment) => ({
      tx_hash: payment.txHash,
      amount: format(BigInt(payment.amountUnits)),
      confirmations: payment.confirmations,
      explorer_url: explorerUrl(row.coin, payment.txHash),
      dropped: payment.droppedAt !== null,
      credited_usd:
        payment.quoteCents === null ? null : centsToUsd(payment.quoteCents + (payment.extraCents ?? 0)),
      credited_parts: creditedParts(row, payment, format),
    })),
    payer: row.payer,
    demo,
    created_at: row.createdAt.toISOString(),
    closed_at: row.closedAt?.toISOString() ?? null,
  };
}
