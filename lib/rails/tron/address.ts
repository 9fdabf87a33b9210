import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js";
import { base58check, bip32ChainKeys, keccakAccountId } from "../deposits/keys";

/**
 * TRON addresses: base58check of 0x41 followed by the 20-byte account id (`T…`). java-tron's
 * Ethereum-style JSON-RPC shows the same account as a 0x-prefixed 20-byte hex address, as in EVM logs.
 */
const TRON_PREFIX = 0x41;

/** `T…` -> `0x…` (lower case, 20 bytes); throws RangeError for anything that is not a TRON address. */
export function tronToEvmHex(address: string): `0x${string}` {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    throw new RangeError(`not a TRON address (bad base58check): ${address}`);
  }
  if (payload.length !== 21 || payload[0] !== TRON_PREFIX) {
    throw new RangeError(`not a TRON address (expected 0x41 + 20 bytes): ${address}`);
  }
  return `0x${bytesToHex(payload.subarray(1))}`;
}

/** `0x…` or `41…` (20-byte account id) -> `T…`. */
export function evmHexToTron(hex: string): string {
  const body = hex
    .toLowerCase()
    .replace(/^0x/, "")
    .replace(/^41(?=[0-9a-f]{40}$)/, "");
  if (!/^[0-9a-f]{40}$/.test(body)) throw new RangeError(`not a 20-byte hex address: ${hex}`);
  return base58check.encode(Uint8Array.from([TRON_PREFIX, ...hexToBytes(body)]));
}

/**
 * What a TRC-20 payment counts as. With the solidified (irreversible) height known, a payment in a
 * solidified block counts fully and one above it stays below the target whatever the depth; without it,
 * confirmations are counted from the head.
 */
export function tronConfirmations(input: {
  block: number;
  head: number;
  solidified: number | undefined;
  required: number;
}): number {
  const depth = Math.max(0, input.head - input.block + 1);
  if (input.solidified === undefined) return depth;
  return input.block <= input.solidified
    ? Math.max(depth, input.required)
    : Math.min(depth, input.required - 1);
}

/** TRON deposit addresses: the `T…` address at `<account xpub>/0/index` of m/44'/195'/0'. */
export const TRON_KEYS = bip32ChainKeys({
  chain: "tron",
  setting: "DEPOSIT_XPUB_TRX",
  accountPath: "m/44'/195'/0'",
  address: (publicKey) =>
    base58check.encode(concatBytes(Uint8Array.of(TRON_PREFIX), keccakAccountId(publicKey))),
  isValidAddress(address) {
    try {
      const payload = base58check.decode(address);
      return payload.length === 21 && payload[0] === TRON_PREFIX;
    } catch {
      return false;
    }
  },
});
