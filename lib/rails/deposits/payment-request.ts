import { decimalToUnits, isDecimal } from "@/lib/util/decimal";
import type { PaymentRequest } from "../family";

/** What every family's payment URI checks first: one address, one exact amount, written two ways that agree. */

const ALPHANUMERIC = /^[0-9A-Za-z]+$/;

/** Throws RangeError unless `request` is a positive amount to a plain address, in `decimals` both ways. */
export function assertRequest(request: PaymentRequest, decimals: number): void {
  if (!ALPHANUMERIC.test(request.address)) throw new RangeError(`not an address: ${request.address}`);
  if (!isDecimal(request.amount)) throw new RangeError(`not a decimal amount: ${request.amount}`);
  if (request.amountUnits <= 0n) throw new RangeError("the amount must be positive");
  const units = decimalToUnits(request.amount, decimals);
  if (units !== request.amountUnits) {
    throw new RangeError(
      `amount ${request.amount} ${request.coin} does not match ${request.amountUnits} smallest units`,
    );
  }
}

/** The token contract a token's URI names; RangeError when it is missing. */
export function tokenContractOf(request: PaymentRequest): string {
  const contract = request.tokenContract;
  if (!contract || !ALPHANUMERIC.test(contract)) {
    throw new RangeError(`${request.coin} needs the token contract address`);
  }
  return contract;
}
