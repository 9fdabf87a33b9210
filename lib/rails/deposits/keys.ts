import "server-only";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { randomBytes } from "@noble/hashes/utils.js";
import { createBase58check } from "@scure/base";
import { HDKey } from "@scure/bip32";
import type { AddressNet, ChainKeys, DepositChain } from "../family";

/**
 * What the BIP32 families share: watch-only extended public keys. The server only ever holds public
 * material; every deposit gets its own index, and every index maps to its own address at
 * `<account xpub>/0/index`. The extended keys should be ACCOUNT-level (depth 3, as wallets export them), so
 * the addresses show up in the owner's wallet; keys of any other depth are accepted and derived from the same
 * way, but then the owner's wallet will look for the funds elsewhere.
 */

/** A watch-only key is missing or cannot be used; the message says which and why. */
export class DepositKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DepositKeyError";
  }
}

export const base58check = createBase58check(sha256);

const MAX_INDEX = 2 ** 31;

export function assertIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_INDEX) {
    throw new RangeError(`deposit index must be an integer in 0..2^31-1, got ${index}`);
  }
}

/** Reads an extended public key with whatever version bytes it carries; throws a plain message. */
export function parseExtendedPublicKey(text: string): HDKey {
  const trimmed = text.trim();
  if (trimmed === "") throw new Error("missing (empty value)");
  let payload: Uint8Array;
  try {
    payload = base58check.decode(trimmed);
  } catch {
    throw new Error("not an extended public key (not valid base58check)");
  }
  if (payload.length !== 78) {
    throw new Error(`not an extended public key (decodes to ${payload.length} bytes, expected 78)`);
  }
  // version(4) || depth(1) || parent fingerprint(4) || child number(4) || chain code(32) || key(33)
  if (payload[45] === 0x00) {
    throw new Error(
      "this is an extended PRIVATE key; configure the account's extended PUBLIC key instead " +
        "(no spending key may be on the server)",
    );
  }
  const version = new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, false);
  try {
    return HDKey.fromExtendedKey(trimmed, { public: version, private: version === 0 ? 1 : 0 });
  } catch (error) {
    throw new Error(`not an extended public key (${error instanceof Error ? error.message : "invalid"})`);
  }
}

const parsedKeys = new Map<string, HDKey>();

/** The compressed public key (33 bytes) at `<key>/0/index`; `setting` names the variable in errors. */
export function childPublicKey(text: string, setting: string, index: number): Uint8Array {
  let key = parsedKeys.get(text);
  if (!key) {
    try {
      key = parseExtendedPublicKey(text);
    } catch (error) {
      throw new DepositKeyError(`${setting}: ${(error as Error).message}`);
    }
    if (parsedKeys.size >= 32) parsedKeys.clear();
    parsedKeys.set(text, key);
  }
  const child = key.deriveChild(0).deriveChild(index);
  if (!child.publicKey) throw new DepositKeyError(`${setting}: could not derive key ${index}`);
  return child.publicKey;
}

/** What is wrong with an extended public key, naming its variable; [] when usable. */
export function extendedKeyProblems(text: string, setting: string): string[] {
  try {
    parseExtendedPublicKey(text);
    return [];
  } catch (error) {
    return [`${setting}: ${(error as Error).message}`];
  }
}

/**
 * A fresh random account-level xpub (standard version bytes) at `accountPath` of a random 32-byte seed, for
 * demo mode. The seed and the private parts are dropped, so nothing sent to its addresses can ever be spent.
 */
export function demoExtendedPublicKey(accountPath: string): string {
  const seed = randomBytes(32);
  const root = HDKey.fromMasterSeed(seed);
  const account = root.derive(accountPath);
  const text = account.publicExtendedKey;
  account.wipePrivateData();
  root.wipePrivateData();
  seed.fill(0);
  return text;
}

/** The 20-byte account id of a secp256k1 key as Ethereum and Tron compute it: keccak-256 of X || Y, last 20. */
export function keccakAccountId(compressedPublicKey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(compressedPublicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/**
 * A BIP32 chain's watch-only key: an account-level extended public key in the variable `setting` (the
 * wallets' account at `accountPath`), and what `address` makes of the public key at `<key>/0/index`.
 */
export function bip32ChainKeys(spec: {
  chain: DepositChain;
  setting: string;
  accountPath: string;
  address: (compressedPublicKey: Uint8Array, net: AddressNet) => string;
  isValidAddress: (address: string, net: AddressNet) => boolean;
}): ChainKeys<string> {
  return {
    chain: spec.chain,
    settings: { key: spec.setting },
    read: (values) => values[spec.setting],
    problems: (key) => extendedKeyProblems(key, spec.setting),
    derive: (key, index, net) => spec.address(childPublicKey(key, spec.setting, index), net),
    isValidAddress: spec.isValidAddress,
    demoKey: () => demoExtendedPublicKey(spec.accountPath),
    env: (key) => ({ [spec.setting]: key }),
  };
}
