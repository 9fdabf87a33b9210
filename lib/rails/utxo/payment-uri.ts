import type { DepositCoinFacts, PaymentRequest } from "../family";

/** BIP21 `bitcoin:<address>?amount=<decimal BTC>`, and its BIP21-style twin `litecoin:…` for LTC. */
export const utxoPaymentUri = (coin: DepositCoinFacts, { address, amount }: PaymentRequest) =>
  `${coin.chain}:${address}?amount=${amount}`;
