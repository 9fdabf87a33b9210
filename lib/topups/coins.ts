import type { DepositChain } from "@/lib/deposits/addresses";

export type DepositCoinCode = "BTC" | "XMR" | "ETH" | "LTC" | "USDTTRC" | "USDT";

/** How a classic coin is received: which key derives its addresses and how its amounts are written. */
export type DepositCoin = {
  code: DepositCoinCode;
  /** The watch-only key family that derives its addresses (ETH and USDT share one). */
  chain: DepositChain;
  /** The `deposit_network` shown to clients. */
  network: string;
  /** Decimals of the smallest unit on chain (satoshi, piconero, wei, token units). */
  decimals: number;
  /** Decimals the asked amount is rounded up to, so people can type it. */
  displayDecimals: number;
  /** Confirmations before a payment counts, as the exchanges and BTCPay-style processors use. */
  confirmations: number;
  /** Token contract for the stablecoins, on their chain. */
  token?: "usdt-erc20" | "usdt-trc20";
};

export const DEPOSIT_COINS: Record<DepositCoinCode, DepositCoin> = {
  BTC: {
    code: "BTC",
    chain: "bitcoin",
    network: "bitcoin",
    decimals: 8,
    displayDecimals: 8,
    confirmations: 2,
  },
  XMR: {
    code: "XMR",
    chain: "monero",
    network: "monero",
    decimals: 12,
    displayDecimals: 8,
    confirmations: 10,
  },
  ETH: {
    code: "ETH",
    chain: "ethereum",
    network: "ethereum",
    decimals: 18,
    displayDecimals: 8,
    confirmations: 12,
  },
  LTC: {
    code: "LTC",
    chain: "litecoin",
    network: "litecoin",
    decimals: 8,
    displayDecimals: 8,
    confirmations: 6,
  },
  USDTTRC: {
    code: "USDTTRC",
    chain: "tron",
    network: "tron",
    decimals: 6,
    displayDecimals: 2,
    confirmations: 19,
    token: "usdt-trc20",
  },
  USDT: {
    code: "USDT",
    chain: "ethereum",
    network: "ethereum",
    decimals: 6,
    displayDecimals: 2,
    confirmations: 12,
    token: "usdt-erc20",
  },
};

export const isDepositCoin = (code: string): code is DepositCoinCode => code in DEPOSIT_COINS;

/** Tether's contracts: the ERC-20 on Ethereum mainnet and the TRC-20 on Tron. */
export const USDT_ERC20_MAINNET = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
export const USDT_TRC20 = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
