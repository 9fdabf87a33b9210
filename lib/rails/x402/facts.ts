import type { X402CoinFacts } from "../family";

/** USD Coin on Base, paid by an EIP-3009 authorization the service settles itself (x402). */
export const USDCBASE = {
  code: "USDCBASE",
  name: "USD Coin on Base (x402)",
  network: "base",
  networkLabel: "Base",
  family: "x402",
  method: "x402",
  depositCoin: "USDC",
  /** USDC has 6 decimals: one cent is 10,000 base units, so USD amounts convert exactly. */
  decimals: 6,
  displayDecimals: 2,
} as const satisfies X402CoinFacts;

/** The official USDC contracts and their EIP-712 domains (name differs between mainnet and Sepolia). */
export const USDC_BY_NETWORK = {
  base: {
    chainId: 8453,
    address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    name: "USD Coin",
    version: "2",
  },
  "base-sepolia": {
    chainId: 84532,
    address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    name: "USDC",
    version: "2",
  },
} as const;
