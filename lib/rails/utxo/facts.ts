import type { DepositCoinFacts } from "../family";

/** Bitcoin-like coins: native segwit (P2WPKH) deposits read from a Bitcoin Core-style node. */
export const BTC = {
  code: "BTC",
  name: "Bitcoin",
  network: "bitcoin",
  networkLabel: "Bitcoin",
  family: "utxo",
  method: "deposit",
  chain: "bitcoin",
  decimals: 8,
  displayDecimals: 8,
  confirmations: 2,
  rateId: "bitcoin",
  demoRate: "97000.00",
  explorerTxUrl: "https://mempool.space/tx/{tx}",
} as const satisfies DepositCoinFacts;

export const LTC = {
  code: "LTC",
  name: "Litecoin",
  network: "litecoin",
  networkLabel: "Litecoin",
  family: "utxo",
  method: "deposit",
  chain: "litecoin",
  decimals: 8,
  displayDecimals: 8,
  confirmations: 6,
  rateId: "litecoin",
  demoRate: "85.00",
  explorerTxUrl: "https://litecoinspace.org/tx/{tx}",
} as const satisfies DepositCoinFacts;
