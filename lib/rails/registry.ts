/**
 * Every coin the service takes, in one place: what the catalog lists, how each is paid, and how wallets name
 * its network. A coin's facts live in its family's folder (lib/rails/<family>/facts.ts); this list is the only
 * other place a coin is named, so a token on a family already here is one line below plus its facts.
 * Client-safe (no server code), so the dashboard reads the same facts.
 */
import { ETH, USDT } from "./evm/facts";
import type { CoinFacts, DepositCoinFacts, X402CoinFacts } from "./family";
import { XMR } from "./monero/facts";
import { USDTTRC } from "./tron/facts";
import { BTC, LTC } from "./utxo/facts";
import { USDCBASE } from "./x402/facts";

/** The catalog's coins, in the order it lists them. */
export const COINS = [BTC, XMR, ETH, LTC, USDTTRC, USDT, USDCBASE] as const satisfies readonly CoinFacts[];

type Listed = (typeof COINS)[number];
export type CoinCode = Listed["code"];
export type DepositCoinCode = Extract<Listed, { method: "deposit" }>["code"];
export type Coin = CoinFacts;
export type DepositCoin = DepositCoinFacts;

export const DEFAULT_COIN: CoinCode = "BTC";

const isDeposit = (coin: CoinFacts): coin is DepositCoinFacts => coin.method === "deposit";

/** The coins paid to a deposit address, by code. */
export const DEPOSIT_COINS = Object.fromEntries(
  COINS.filter(isDeposit).map((coin) => [coin.code, coin]),
) as Record<DepositCoinCode, DepositCoinFacts>;

export const isDepositCoin = (code: string): code is DepositCoinCode => Object.hasOwn(DEPOSIT_COINS, code);

/** The coin paid with a signed authorization (x402). */
export const X402_COIN: X402CoinFacts = USDCBASE;

/** A coin's facts by code, or undefined for a code no family lists. */
export const coinFacts = (code: string): CoinFacts | undefined => COINS.find((coin) => coin.code === code);

/** Every network top-ups are paid on, as `deposit_network` names them, each once. */
export const NETWORKS: readonly string[] = [...new Set(COINS.map((coin) => coin.network))];

/** The networks deposits are paid on, as `deposit_network` names them, each once. */
export const DEPOSIT_NETWORKS: readonly string[] = [
  ...new Set(Object.values(DEPOSIT_COINS).map((c) => c.network)),
];

/** The network named as a wallet app names it: the coin's own label, else the network's, else its id. */
export function networkLabel(network: string | null, coin: string): string {
  const own = COINS.find((entry) => entry.code === coin && entry.network === network);
  if (own) return own.networkLabel;
  const shared = COINS.find((entry) => entry.network === network);
  return shared?.networkLabel ?? network ?? "—";
}
