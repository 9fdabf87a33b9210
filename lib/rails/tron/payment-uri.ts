import { tokenContractOf } from "../deposits/payment-request";
import type { PaymentRequest } from "../family";

/**
 * A TRC-20 payment: `tron:<address>?amount=<decimal>&token=<TRC-20 contract>`. TRON has no formal payment URI
 * standard (no BIP21/EIP-681 equivalent); this form is the one wallets commonly emit and accept, and wallets
 * that do not understand it still pick up the address.
 */
export const tronPaymentUri = (request: PaymentRequest) =>
  `tron:${request.address}?amount=${request.amount}&token=${tokenContractOf(request)}`;
