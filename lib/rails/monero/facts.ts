import type { DepositCoinFacts } from "../family";

/** Monero: each deposit is a subaddress of a view-only wallet. */
export const XMR = {
  code: "XMR",
  name: "Monero",
  network: "monero",
  networkLabel: "Monero",
  family: "monero",
  method: "deposit",
  chain: "monero",
  decimals: 12,
  displayDecimals: 8,
  confirmations: 10,
  rateId: "monero",
  demoRate: "160.00",
  explorerTxUrl: "https://xmrchain.net/tx/{tx}",
} as const satisfies DepositCoinFacts;
