import "server-only";
import { EVM_FAMILY } from "./evm/family";
import type {
  ChainKeys,
  DepositChain,
  DepositCoinFacts,
  DepositFamily,
  FamilyId,
  RailFamily,
} from "./family";
import { MONERO_FAMILY } from "./monero/family";
import { TRON_FAMILY } from "./tron/family";
import { UTXO_FAMILY } from "./utxo/family";
import { X402_FAMILY } from "./x402/family";

/**
 * Each family's server parts, by the id its coins name in lib/rails/registry (the compiler refuses a family
 * without them). Families are asked in this order: for keys, watchers and everything else.
 */
export const FAMILIES: Record<FamilyId, RailFamily> = {
  utxo: UTXO_FAMILY,
  evm: EVM_FAMILY,
  tron: TRON_FAMILY,
  monero: MONERO_FAMILY,
  x402: X402_FAMILY,
};

export const DEPOSIT_FAMILIES: readonly DepositFamily[] = Object.values(FAMILIES).filter(
  (family): family is DepositFamily => family.method === "deposit",
);

/** The family that receives `coin`. */
export function familyOf(coin: DepositCoinFacts): DepositFamily {
  const family = FAMILIES[coin.family];
  if (family.method !== "deposit") throw new RangeError(`${coin.code} is not paid by deposit`);
  return family;
}

/** Every chain's watch-only key, in the families' order. */
export const CHAIN_KEYS: readonly ChainKeys[] = DEPOSIT_FAMILIES.flatMap((family) => family.chains);

/** The watch-only key of `chain`, and the family that derives on it. */
export function chainOf(chain: DepositChain): { keys: ChainKeys; family: DepositFamily } | undefined {
  for (const family of DEPOSIT_FAMILIES) {
    const keys = family.chains.find((candidate) => candidate.chain === chain);
    if (keys) return { keys, family };
  }
  return undefined;
}
