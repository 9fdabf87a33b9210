import { formatUnits } from "viem";
import { coinFacts, X402_COIN } from "./registry";

/**
 * How an amount of a coin reads: the decimals and display precision of what is paid (the deposit coin, or
 * the token an authorization sends), and units written as whole coins. The coins' facts say both, so top-ups,
 * the operator's console and the notifications read them here alike.
 */

/** Decimals and display precision of what is paid: the deposit coin, or the token an authorization sends. */
export function unitsOf(coin: string): { decimals: number; displayDecimals: number; depositCoin: string } {
  const facts = coinFacts(coin) ?? X402_COIN;
  const depositCoin = facts.method === "x402" ? facts.depositCoin : facts.code;
  return { decimals: facts.decimals, displayDecimals: facts.displayDecimals, depositCoin };
}

/** Units as a decimal string in whole coins, keeping at least `minDecimals` digits after the point. */
export function formatCoinAmount(units: bigint, decimals: number, minDecimals: number): string {
  const text = formatUnits(units, decimals);
  const [whole, fraction = ""] = text.split(".");
  return minDecimals > 0 || fraction ? `${whole}.${fraction.padEnd(minDecimals, "0")}` : `${whole}`;
}
