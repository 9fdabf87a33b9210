import "server-only";
import type { DepositCoinCode } from "@/lib/rails/registry";

/** What to ask a wallet to pay: one coin, one address, one exact amount. */
export type PaymentRequest = {
  coin: DepositCoinCode;
  address: string;
  /** Decimal string in whole coin units, e.g. "0.00150000". */
  amount: string;
  /** The same amount in the smallest unit (satoshi, piconero, wei, token units). */
  amountUnits: bigint;
  /** ERC-20 / TRC-20 contract; required for USDT and USDTTRC, ignored otherwise. */
  tokenContract?: string;
  /** EVM chain id for ETH and USDT (EIP-155); default 1 (Ethereum mainnet). */
  chainId?: number;
};

/** Decimals of each coin's smallest unit, to check that `amount` and `amountUnits` agree. */
const UNIT_DECIMALS: Record<PaymentRequest["coin"], number> = {
  BTC: 8,
  LTC: 8,
  XMR: 12,
  ETH: 18,
  USDT: 6,
  USDTTRC: 6,
};

const ALPHANUMERIC = /^[0-9A-Za-z]+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** `amount` as an integer of smallest units, or undefined when it has more decimals than the coin. */
function decimalToUnits(amount: string, decimals: number): bigint | undefined {
  const [whole = "0", fraction = ""] = amount.split(".");
  const significant = fraction.replace(/0+$/, "");
  if (significant.length > decimals) return undefined;
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(significant.padEnd(decimals, "0") || "0");
}

function assertRequest(request: PaymentRequest): void {
  if (!(request.coin in UNIT_DECIMALS)) throw new RangeError(`unknown coin ${String(request.coin)}`);
  if (!ALPHANUMERIC.test(request.address)) throw new RangeError(`not an address: ${request.address}`);
  if (!DECIMAL.test(request.amount)) throw new RangeError(`not a decimal amount: ${request.amount}`);
  if (request.amountUnits <= 0n) throw new RangeError("the amount must be positive");
  const units = decimalToUnits(request.amount, UNIT_DECIMALS[request.coin]);
  if (units !== request.amountUnits) {
    throw new RangeError(
      `amount ${request.amount} ${request.coin} does not match ${request.amountUnits} smallest units`,
    );
  }
}

function tokenContractOf(request: PaymentRequest): string {
  const contract = request.tokenContract;
  if (!contract || !ALPHANUMERIC.test(contract)) {
    throw new RangeError(`${request.coin} needs the token contract address`);
  }
  return contract;
}

function chainIdOf(request: PaymentRequest): number {
  const chainId = request.chainId ?? 1;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new RangeError(`not an EVM chain id: ${chainId}`);
  return chainId;
}

/**
 * The payment URI a wallet app opens (or scans from a QR code) to pay `request` exactly:
 *
 * - BTC: BIP21 `bitcoin:<address>?amount=<decimal BTC>`
 * - LTC: BIP21-style `litecoin:<address>?amount=<decimal LTC>`
 * - XMR: Monero URI scheme `monero:<address>?tx_amount=<decimal XMR>`
 * - ETH: EIP-681 `ethereum:<address>@<chainId>?value=<wei>`
 * - USDT (ERC-20): EIP-681 `ethereum:<token>@<chainId>/transfer?address=<address>&uint256=<units>`
 * - USDTTRC (TRC-20): `tron:<address>?amount=<decimal USDT>&token=<token>`
 *
 * Throws RangeError when the request is inconsistent (e.g. `amount` and `amountUnits` disagree).
 */
export function paymentUri(request: PaymentRequest): string {
  assertRequest(request);
  const { address, amount, amountUnits } = request;
  switch (request.coin) {
    case "BTC":
      return `bitcoin:${address}?amount=${amount}`;
    case "LTC":
      return `litecoin:${address}?amount=${amount}`;
    case "XMR":
      return `monero:${address}?tx_amount=${amount}`;
    case "ETH":
      return `ethereum:${address}@${chainIdOf(request)}?value=${amountUnits.toString()}`;
    case "USDT":
      return (
        `ethereum:${tokenContractOf(request)}@${chainIdOf(request)}/transfer` +
        `?address=${address}&uint256=${amountUnits.toString()}`
      );
    case "USDTTRC":
      // TRON has no formal payment URI standard (no BIP21/EIP-681 equivalent); this
      // `tron:<address>?amount=<decimal>&token=<TRC-20 contract>` form is the one wallets commonly
      // emit and accept. Wallets that do not understand it still pick up the address.
      return `tron:${address}?amount=${amount}&token=${tokenContractOf(request)}`;
  }
}
