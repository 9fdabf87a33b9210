import type { DepositCoinFacts } from "../family";

/** Ether and the ERC-20 tokens on Ethereum: one key, one node, one watcher for all of them. */
export const ETH = {
  code: "ETH",
  name: "Ether",
  network: "ethereum",
  networkLabel: "Ethereum mainnet",
  family: "evm",
  method: "deposit",
  chain: "ethereum",
  decimals: 18,
  displayDecimals: 8,
  confirmations: 12,
  rateId: "ethereum",
  demoRate: "3200.00",
  explorerTxUrl: "https://etherscan.io/tx/{tx}",
} as const satisfies DepositCoinFacts;

/** Tether's ERC-20 on Ethereum mainnet. */
export const USDT = {
  code: "USDT",
  name: "Tether USD (ERC-20)",
  network: "ethereum",
  networkLabel: "Ethereum (ERC-20 token)",
  family: "evm",
  method: "deposit",
  chain: "ethereum",
  decimals: 6,
  displayDecimals: 2,
  confirmations: 12,
  rateId: "tether",
  demoRate: "1.00",
  explorerTxUrl: "https://etherscan.io/tx/{tx}",
  token: { contract: "0xdAC17F958D2ee523a2206206994597C13D831ec7", setting: "EVM_USDT_ADDRESS" },
} as const satisfies DepositCoinFacts;
