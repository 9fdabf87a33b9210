/**
 * Every coin the service takes, in one place: what the catalog lists, how a deposit coin is received, and
 * how wallets name its network. Client-safe (no server code), so the dashboard reads the same facts.
 */
import type { DepositChain } from "@/lib/rails/deposits/addresses";

export type DepositCoinCode = "BTC" | "XMR" | "ETH" | "LTC" | "USDTTRC" | "USDT";
export type CoinCode = DepositCoinCode | "USDCBASE";

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

export type Coin = {
  code: CoinCode;
  name: string;
  network: string;
  /** `deposit`: pay to an address; `x402`: a signed USDC authorization settled by the service. */
  method: "deposit" | "x402";
  /** The network as a wallet app names it, shown beside the address. */
  networkLabel: string;
};

/** The catalog's coins, in the order it lists them. */
export const COINS: readonly Coin[] = [
  { code: "BTC", name: "Bitcoin", network: "bitcoin", method: "deposit", networkLabel: "Bitcoin" },
  { code: "XMR", name: "Monero", network: "monero", method: "deposit", networkLabel: "Monero" },
  { code: "ETH", name: "Ether", network: "ethereum", method: "deposit", networkLabel: "Ethereum mainnet" },
  { code: "LTC", name: "Litecoin", network: "litecoin", method: "deposit", networkLabel: "Litecoin" },
  {
    code: "USDTTRC",
    name: "Tether USD (TRC-20)",
    network: "tron",
    method: "deposit",
    networkLabel: "Tron (TRC-20 token)",
  },
  {
    code: "USDT",
    name: "Tether USD (ERC-20)",
    network: "ethereum",
    method: "deposit",
    networkLabel: "Ethereum (ERC-20 token)",
  },
  {
    code: "USDCBASE",
    name: "USD Coin on Base (x402)",
    network: "base",
    method: "x402",
    networkLabel: "Base",
  },
];

export const DEFAULT_COIN: CoinCode = "BTC";

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

export const isDepositCoin = (code: string): code is DepositCoinCode => Object.hasOwn(DEPOSIT_COINS, code);

/** Tether's contracts: the ERC-20 on Ethereum mainnet and the TRC-20 on Tron. */
export const USDT_ERC20_MAINNET = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
export const USDT_TRC20 = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

/** The x402 networks by the names wallets give them. */
export const X402_NETWORK_NAMES: Record<string, string> = { base: "Base", "base-sepolia": "Base Sepolia" };

/** The network named as a wallet app names it: the coin's own label, else the network's, else its id. */
export function networkLabel(network: string | null, coin: string): string {
  const own = COINS.find((entry) => entry.code === coin && entry.network === network);
  if (own) return own.networkLabel;
  const shared = COINS.find((entry) => entry.network === network);
  return shared?.networkLabel ?? network ?? "—";
}
