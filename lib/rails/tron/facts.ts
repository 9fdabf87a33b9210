import type { DepositCoinFacts } from "../family";

/** Tether's TRC-20 on Tron. */
export const USDTTRC = {
  code: "USDTTRC",
  name: "Tether USD (TRC-20)",
  network: "tron",
  networkLabel: "Tron (TRC-20 token)",
  family: "tron",
  method: "deposit",
  chain: "tron",
  decimals: 6,
  displayDecimals: 2,
  confirmations: 19,
  rateId: "tether",
  demoRate: "1.00",
  explorerTxUrl: "https://tronscan.org/#/transaction/{tx}",
  token: { contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", setting: "TRON_USDT_ADDRESS" },
} as const satisfies DepositCoinFacts;
