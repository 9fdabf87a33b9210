import type { PaymentRequest } from "../family";

/** The Monero URI scheme: `monero:<address>?tx_amount=<decimal XMR>`. */
export const moneroPaymentUri = ({ address, amount }: PaymentRequest) =>
  `monero:${address}?tx_amount=${amount}`;
