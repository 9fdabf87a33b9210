import "server-only";
import { bytesToHex } from "@noble/hashes/utils.js";
import { getAddress } from "viem";
import { bip32ChainKeys, keccakAccountId } from "../deposits/keys";

/**
 * Ethereum deposit addresses (ETH and every ERC-20 token on it): the EIP-55 checksummed address at
 * `<account xpub>/0/index` of m/44'/60'/0'.
 */
export const ETHEREUM_KEYS = bip32ChainKeys({
  chain: "ethereum",
  setting: "DEPOSIT_XPUB_ETH",
  accountPath: "m/44'/60'/0'",
  address: (publicKey) => getAddress(`0x${bytesToHex(keccakAccountId(publicKey))}`),
  isValidAddress: (address) => /^0x[0-9a-fA-F]{40}$/.test(address) && getAddress(address) === address,
});
