import "server-only";
import { assertRequest } from "./deposits/payment-request";
import { familyOf } from "./families";
import type { PaymentRequest } from "./family";
import { DEPOSIT_COINS, type DepositCoinCode, isDepositCoin } from "./registry";

export type { PaymentRequest };

/**
 * The payment URI a wallet app opens (or scans from a QR code) to pay `request` exactly, in the form its
 * coin's family writes (BIP21, the Monero URI, EIP-681, TRON's common form). Throws RangeError when the
 * request is inconsistent (e.g. `amount` and `amountUnits` disagree) or names no deposit coin.
 */
export function paymentUri(request: PaymentRequest): string {
  if (!isDepositCoin(request.coin)) throw new RangeError(`unknown coin ${String(request.coin)}`);
  const coin = DEPOSIT_COINS[request.coin];
  assertRequest(request, coin.decimals);
  return familyOf(coin).paymentUri(coin, request);
}

/** The URI for a top-up in `code`: what its family needs beyond address and amount comes from its settings. */
export function depositPaymentUri(
  code: DepositCoinCode,
  address: string,
  amount: string,
  amountUnits: bigint,
) {
  const coin = DEPOSIT_COINS[code];
  return paymentUri({ coin: code, address, amount, amountUnits, ...familyOf(coin).uriContext(coin) });
}
