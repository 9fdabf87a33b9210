import "server-only";
import { ConfigError, envSlice, optionalText } from "@/lib/config/slice";
import { assertIndex, DepositKeyError } from "./deposits/keys";
import { CHAIN_KEYS, chainOf, familyOf } from "./families";
import type { AddressNet, DepositChain, WatchOnlyKeys } from "./family";
import { DEPOSIT_COINS, type DepositCoinCode } from "./registry";

/**
 * Deposit addresses derived from watch-only keys, whatever the family: the keys' configuration (each chain
 * names its own variables), and the address of a derivation index on a chain, each family deriving its own.
 */

const keyOf = (keys: WatchOnlyKeys, chain: DepositChain): unknown => keys[chain];

/**
 * The deposit address number `index` (0 <= index < 2^31) of `chain`, from watch-only keys only.
 * Throws RangeError for a bad index and DepositKeyError when the chain's key is missing or unusable.
 */
export function deriveDepositAddress(
  chain: DepositChain,
  keys: WatchOnlyKeys,
  index: number,
  net: AddressNet = "main",
): string {
  assertIndex(index);
  const found = chainOf(chain);
  if (!found) throw new DepositKeyError(`unknown deposit chain ${String(chain)}`);
  const key = keyOf(keys, chain);
  if (key === undefined) {
    const settings = Object.values(found.keys.settings).join("/");
    throw new DepositKeyError(`${settings}: no watch-only key configured for ${chain}`);
  }
  return found.keys.derive(key, index, net);
}

/** Whether `address` has the form derived for `chain` (on mainnet unless `net` says), checksum included. */
export function isValidDepositAddress(
  chain: DepositChain,
  address: string,
  net: AddressNet = "main",
): boolean {
  if (typeof address !== "string") return false;
  return chainOf(chain)?.keys.isValidAddress(address, net) ?? false;
}

/**
 * Checks every configured key and lists what is wrong with each, naming the setting
 * (e.g. "DEPOSIT_XPUB_BTC: not an extended public key (…)"); [] when all are usable.
 * Unconfigured (undefined) keys are fine: their coins are simply not offered.
 */
export function validateWatchOnlyKeys(keys: WatchOnlyKeys): string[] {
  return CHAIN_KEYS.flatMap((chain) => {
    const key = keyOf(keys, chain.chain);
    return key === undefined ? [] : chain.problems(key);
  });
}

/**
 * Fresh random watch-only keys for demo mode, one per chain: account-level xpubs (standard version bytes)
 * of random seeds, and a Monero public spend key plus view key. Only public parts and the Monero view key
 * are returned; the seeds and spend secrets are dropped, so nothing sent to these addresses can be spent.
 */
export function generateDemoWatchOnlyKeys(): Required<WatchOnlyKeys> {
  return Object.fromEntries(
    CHAIN_KEYS.map((chain) => [chain.chain, chain.demoKey()]),
  ) as Required<WatchOnlyKeys>;
}

/** The environment that configures these keys (tests and benchmarks start an app or the watchers with it). */
export function watchOnlyKeyEnv(keys: Required<WatchOnlyKeys>): Record<string, string> {
  return Object.assign({}, ...CHAIN_KEYS.map((chain) => chain.env(keyOf(keys, chain.chain))));
}

const keySettings = CHAIN_KEYS.flatMap((chain) => Object.values(chain.settings));

/**
 * The watch-only keys every deposit address is derived from. Unset keys are fine: their coins are simply not
 * offered. In demo mode with no key at all, keys are generated once into DATA_DIR (public parts only).
 */
export const DEPOSIT_KEY_SETTINGS = envSlice({
  name: "watch-only-keys",
  shape: Object.fromEntries(keySettings.map((name) => [name, optionalText])) as Record<
    string,
    typeof optionalText
  >,
  derive(values, { mode, demoValue }): { keys: WatchOnlyKeys; demoKeys: boolean } {
    const configured = Object.fromEntries(
      CHAIN_KEYS.map((chain) => [chain.chain, chain.read(values)]),
    ) as WatchOnlyKeys;
    const problems = validateWatchOnlyKeys(configured);
    if (problems.length > 0) throw new ConfigError(problems);
    const anyConfigured = Object.values(configured).some((key) => key !== undefined);
    if (anyConfigured || mode !== "demo") return { keys: configured, demoKeys: false };
    return { keys: demoValue("depositKeys", generateDemoWatchOnlyKeys), demoKeys: true };
  },
});

/** The process's watch-only keys; `demoKeys` when they were generated for the demo rather than configured. */
export const watchOnlyKeys = () => DEPOSIT_KEY_SETTINGS.read();

/** The address of derivation index `index` for a top-up in `code`, in the format its chain uses here. */
export function depositAddress(code: DepositCoinCode, index: number): string {
  const coin = DEPOSIT_COINS[code];
  return deriveDepositAddress(coin.chain, watchOnlyKeys().keys, index, familyOf(coin).addressNet(coin.chain));
}
