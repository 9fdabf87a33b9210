import { tokenContractOf } from "../deposits/payment-request";
import type { DepositCoinFacts, PaymentRequest } from "../family";

function chainIdOf(request: PaymentRequest): number {
  const chainId = request.chainId ?? 1;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new RangeError(`not an EVM chain id: ${chainId}`);
  return chainId;
}

/**
 * EIP-681: ether as `ethereum:<address>@<chainId>?value=<wei>`, an ERC-20 token as a call of its contract,
 * `ethereum:<token>@<chainId>/transfer?address=<address>&uint256=<units>`.
 */
export function evmPaymentUri(coin: DepositCoinFacts, request: PaymentRequest): string {
  const { address, amountUnits } = request;
  if (!coin.token) return `ethereum:${address}@${chainIdOf(request)}?value=${amountUnits.toString()}`;
  return (
    `ethereum:${tokenContractOf(request)}@${chainIdOf(request)}/transfer` +
    `?address=${address}&uint256=${amountUnits.toString()}`
  );
}
