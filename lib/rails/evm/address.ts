import "server-only";
import { bytesToHex } from "@noble/hashes/utils.js";
import { getAddress } from "viem";
import {
  childPublicKey,
  demoExtendedPublicKey,
  extendedKeyProblems,
  keccakAccountId,
} from "../deposits/keys";
import type { ChainKeys } from "../family";

const SETTING = "DEPOSIT_XPUB_ETH";

/**
 * Ethereum deposit addresses (ETH and every ERC-20 token on it): the EIP-55 checksummed address at
 * `<account xpub>/0/index` of m/44'/60'/0'.
 */
export const ETHEREUM_KEYS: ChainKeys<string> = {
  chain: "ethereum",
  settings: { key: SETTING },
  read: (values) => values[SETTING],
  problems: (key) => extendedKeyProblems(key, SETTING),
  derive: (key, index) => getAddress(`0x${bytesToHex(keccakAccountId(childPublicKey(key, SETTING, index)))}`),
  isValidAddress: (address) => /^0x[0-9a-fA-F]{40}$/.test(address) && getAddress(address) === address,
  demoKey: () => demoExtendedPublicKey("m/44'/60'/0'"),
  env: (key) => ({ [SETTING]: key }),
};
