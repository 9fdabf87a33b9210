import "server-only";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { bech32 } from "@scure/base";
import { bip32ChainKeys } from "../deposits/keys";
import type { AddressNet } from "../family";

/**
 * Bitcoin and Litecoin deposit addresses: native segwit P2WPKH (`bc1q…` / `ltc1q…`, `bcrt1q…` / `rltc1q…` on
 * regtest) at `<account xpub>/0/index` of the accounts m/84'/0'/0' and m/84'/2'/0'.
 */
export type UtxoChain = "bitcoin" | "litecoin";

const SEGWIT_HRP = {
  bitcoin: { main: "bc", regtest: "bcrt" },
  litecoin: { main: "ltc", regtest: "rltc" },
} as const;

const hash160 = (data: Uint8Array): Uint8Array => ripemd160(sha256(data));

function segwitAddress(hrp: string, compressedPublicKey: Uint8Array): string {
  return bech32.encode(hrp, [0, ...bech32.toWords(hash160(compressedPublicKey))]);
}

/** The 20-byte key hash of a P2WPKH address with human-readable part `hrp`, or undefined. */
function p2wpkhProgram(address: string, hrp: string): Uint8Array | undefined {
  const decoded = bech32.decodeUnsafe(address);
  if (!decoded || decoded.prefix !== hrp || decoded.words[0] !== 0) return undefined;
  const program = bech32.fromWordsUnsafe(decoded.words.slice(1));
  return program?.length === 20 ? Uint8Array.from(program) : undefined;
}

/**
 * The output script (hex) that pays a P2WPKH address of ours, `0014<key hash>`: what a wallet-less
 * watcher matches transaction outputs against.
 */
export function p2wpkhScriptHex(chain: UtxoChain, address: string, net: AddressNet): string {
  const program = p2wpkhProgram(address, SEGWIT_HRP[chain][net]);
  if (!program) throw new RangeError(`not a ${chain} ${net} P2WPKH address: ${address}`);
  return `0014${bytesToHex(program)}`;
}

const segwitKeys = (chain: UtxoChain, setting: string, accountPath: string) =>
  bip32ChainKeys({
    chain,
    setting,
    accountPath,
    address: (publicKey, net) => segwitAddress(SEGWIT_HRP[chain][net], publicKey),
    isValidAddress: (address, net) => p2wpkhProgram(address, SEGWIT_HRP[chain][net]) !== undefined,
  });

export const BITCOIN_KEYS = segwitKeys("bitcoin", "DEPOSIT_XPUB_BTC", "m/84'/0'/0'");
export const LITECOIN_KEYS = segwitKeys("litecoin", "DEPOSIT_XPUB_LTC", "m/84'/2'/0'");
