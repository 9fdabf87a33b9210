import "server-only";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, hexToBytes, randomBytes } from "@noble/hashes/utils.js";
import { base58xmr, bech32, createBase58check } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { getAddress } from "viem";

/**
 * Deposit addresses derived from watch-only keys.
 *
 * The server only ever holds public material (extended public keys, and for Monero the private
 * *view* key, which lets it see incoming payments but not spend them). Every deposit gets its own
 * index, and every index maps to its own address on the chain:
 *
 * - bitcoin / litecoin: native segwit P2WPKH (`bc1q…` / `ltc1q…`) at `<account xpub>/0/index`;
 * - ethereum (ETH and ERC-20 USDT): EIP-55 address at `<account xpub>/0/index`;
 * - tron (TRC-20 USDT): `T…` address at `<account xpub>/0/index`;
 * - monero: the subaddress (account 0, minor index + 1) of the wallet.
 *
 * The extended keys should be ACCOUNT-level (depth 3: m/84'/0'/0', m/84'/2'/0', m/44'/60'/0',
 * m/44'/195'/0'), as wallets export them, so the addresses show up in the owner's wallet. Keys of
 * any other depth are accepted and derived from the same way, but then the owner's wallet will
 * look for the funds elsewhere.
 */

export type DepositChain = "bitcoin" | "litecoin" | "ethereum" | "tron" | "monero";

export type WatchOnlyKeys = {
  /** Account-level extended public key, e.g. of m/84'/0'/0' (xpub, zpub, any version bytes). */
  bitcoin?: string;
  /** Account-level extended public key, e.g. of m/84'/2'/0' (xpub, Ltub, zpub, Mtub, …). */
  litecoin?: string;
  /** Account-level extended public key of m/44'/60'/0' (ETH and ERC-20 USDT). */
  ethereum?: string;
  /** Account-level extended public key of m/44'/195'/0'. */
  tron?: string;
  /** 64-hex private view key and 64-hex public spend key of a Monero wallet. */
  monero?: { viewKey: string; spendPublicKey: string };
};

/** A watch-only key is missing or cannot be used; the message says which and why. */
export class DepositKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DepositKeyError";
  }
}

/** The environment variables the keys come from, so messages point at what to fix. */
export const WATCH_ONLY_KEY_SETTINGS = {
  bitcoin: "DEPOSIT_XPUB_BTC",
  litecoin: "DEPOSIT_XPUB_LTC",
  ethereum: "DEPOSIT_XPUB_ETH",
  tron: "DEPOSIT_XPUB_TRX",
  moneroViewKey: "DEPOSIT_XMR_VIEW_KEY",
  moneroSpendPublicKey: "DEPOSIT_XMR_SPEND_PUBLIC_KEY",
} as const;

/** The environment that configures these keys (tests and benchmarks start an app or the watchers with it). */
export function watchOnlyKeyEnv(keys: Required<WatchOnlyKeys>): Record<string, string> {
  return {
    [WATCH_ONLY_KEY_SETTINGS.bitcoin]: keys.bitcoin,
    [WATCH_ONLY_KEY_SETTINGS.litecoin]: keys.litecoin,
    [WATCH_ONLY_KEY_SETTINGS.ethereum]: keys.ethereum,
    [WATCH_ONLY_KEY_SETTINGS.tron]: keys.tron,
    [WATCH_ONLY_KEY_SETTINGS.moneroViewKey]: keys.monero.viewKey,
    [WATCH_ONLY_KEY_SETTINGS.moneroSpendPublicKey]: keys.monero.spendPublicKey,
  };
}

type Bip32Chain = Exclude<DepositChain, "monero">;

const BIP32_CHAINS: readonly Bip32Chain[] = ["bitcoin", "litecoin", "ethereum", "tron"];

/** Account paths used by `generateDemoWatchOnlyKeys` (and by the wallets the real keys come from). */
const ACCOUNT_PATHS: Record<Bip32Chain, string> = {
  bitcoin: "m/84'/0'/0'",
  litecoin: "m/84'/2'/0'",
  ethereum: "m/44'/60'/0'",
  tron: "m/44'/195'/0'",
};

/** Which chain of a coin the addresses are for: the same key gives `bc1…` on mainnet, `bcrt1…` on regtest. */
export type SegwitNet = "main" | "regtest";

const SEGWIT_HRP = {
  bitcoin: { main: "bc", regtest: "bcrt" },
  litecoin: { main: "ltc", regtest: "rltc" },
} as const;
const TRON_PREFIX = 0x41;
const MONERO_MAINNET_SUBADDRESS_PREFIX = 42;

const base58check = createBase58check(sha256);
const hash160 = (data: Uint8Array): Uint8Array => ripemd160(sha256(data));

const MAX_INDEX = 2 ** 31;

function assertIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_INDEX) {
    throw new RangeError(`deposit index must be an integer in 0..2^31-1, got ${index}`);
  }
}

// ---------------------------------------------------------------------------------------------
// BIP32 extended public keys
// ---------------------------------------------------------------------------------------------

/** Reads an extended public key with whatever version bytes it carries; throws a plain message. */
function parseExtendedPublicKey(text: string): HDKey {
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

function accountKey(chain: Bip32Chain, keys: WatchOnlyKeys): HDKey {
  const text = keys[chain];
  const setting = WATCH_ONLY_KEY_SETTINGS[chain];
  if (text === undefined) throw new DepositKeyError(`${setting}: no watch-only key configured for ${chain}`);
  const cached = parsedKeys.get(text);
  if (cached) return cached;
  let key: HDKey;
  try {
    key = parseExtendedPublicKey(text);
  } catch (error) {
    throw new DepositKeyError(`${setting}: ${(error as Error).message}`);
  }
  if (parsedKeys.size >= 32) parsedKeys.clear();
  parsedKeys.set(text, key);
  return key;
}

function childPublicKey(chain: Bip32Chain, keys: WatchOnlyKeys, index: number): Uint8Array {
  const child = accountKey(chain, keys).deriveChild(0).deriveChild(index);
  if (!child.publicKey) throw new DepositKeyError(`could not derive ${chain} key ${index}`);
  return child.publicKey; // compressed, 33 bytes
}

/** 65-byte uncompressed (0x04 || X || Y) form of a compressed secp256k1 public key. */
function uncompressed(publicKey: Uint8Array): Uint8Array {
  return secp256k1.Point.fromBytes(publicKey).toBytes(false);
}

function segwitAddress(hrp: string, compressedPublicKey: Uint8Array): string {
  return bech32.encode(hrp, [0, ...bech32.toWords(hash160(compressedPublicKey))]);
}

function ethereumAddress(compressedPublicKey: Uint8Array): string {
  const hash = keccak_256(uncompressed(compressedPublicKey).subarray(1));
  return getAddress(`0x${bytesToHex(hash.subarray(12))}`);
}

function tronAddress(compressedPublicKey: Uint8Array): string {
  const hash = keccak_256(uncompressed(compressedPublicKey).subarray(1));
  return base58check.encode(concatBytes(Uint8Array.of(TRON_PREFIX), hash.subarray(12)));
}

// ---------------------------------------------------------------------------------------------
// Monero
// ---------------------------------------------------------------------------------------------

const EdPoint = ed25519.Point;
type EdPointType = ReturnType<typeof EdPoint.fromBytes>;
const ED_ORDER = EdPoint.Fn.ORDER; // l = 2^252 + 27742317777372353535851937790883648493

const HEX_64 = /^[0-9a-fA-F]{64}$/;

type MoneroKeys = { viewScalar: bigint; viewKeyBytes: Uint8Array; spendPoint: EdPointType };

function parseMoneroViewKey(text: string): { scalar: bigint; bytes: Uint8Array } {
  if (text.trim() === "") throw new Error("missing (empty value)");
  if (!HEX_64.test(text.trim())) throw new Error("expected 64 hex characters (the wallet's secret view key)");
  const bytes = hexToBytes(text.trim().toLowerCase());
  const scalar = bytesToNumberLE(bytes);
  if (scalar === 0n || scalar >= ED_ORDER) {
    throw new Error("not a reduced ed25519 scalar (is this really the secret view key?)");
  }
  return { scalar, bytes };
}

function parseMoneroSpendPublicKey(text: string): EdPointType {
  if (text.trim() === "") throw new Error("missing (empty value)");
  if (!HEX_64.test(text.trim()))
    throw new Error("expected 64 hex characters (the wallet's public spend key)");
  let point: EdPointType;
  try {
    point = EdPoint.fromBytes(hexToBytes(text.trim().toLowerCase()));
  } catch {
    throw new Error("not a valid ed25519 point (is this really the public spend key?)");
  }
  if (point.isSmallOrder() || !point.isTorsionFree()) {
    throw new Error("not a usable public key (small-order or outside the prime-order subgroup)");
  }
  return point;
}

const parsedMoneroKeys = new Map<string, MoneroKeys>();

function moneroKeys(keys: WatchOnlyKeys): MoneroKeys {
  const monero = keys.monero;
  if (!monero) {
    throw new DepositKeyError(
      `${WATCH_ONLY_KEY_SETTINGS.moneroViewKey}/${WATCH_ONLY_KEY_SETTINGS.moneroSpendPublicKey}: ` +
        "no watch-only key configured for monero",
    );
  }
  const cacheKey = `${monero.viewKey}:${monero.spendPublicKey}`;
  const cached = parsedMoneroKeys.get(cacheKey);
  if (cached) return cached;
  let view: { scalar: bigint; bytes: Uint8Array };
  let spendPoint: EdPointType;
  try {
    view = parseMoneroViewKey(monero.viewKey);
  } catch (error) {
    throw new DepositKeyError(`${WATCH_ONLY_KEY_SETTINGS.moneroViewKey}: ${(error as Error).message}`);
  }
  try {
    spendPoint = parseMoneroSpendPublicKey(monero.spendPublicKey);
  } catch (error) {
    throw new DepositKeyError(`${WATCH_ONLY_KEY_SETTINGS.moneroSpendPublicKey}: ${(error as Error).message}`);
  }
  const parsed = { viewScalar: view.scalar, viewKeyBytes: view.bytes, spendPoint };
  if (parsedMoneroKeys.size >= 32) parsedMoneroKeys.clear();
  parsedMoneroKeys.set(cacheKey, parsed);
  return parsed;
}

/** Hs: Monero's hash-to-scalar, keccak-256 (cn_fast_hash) read little-endian and reduced mod l. */
function hashToScalar(data: Uint8Array): bigint {
  return bytesToNumberLE(keccak_256(data)) % ED_ORDER;
}

function u32le(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}

const SUBADDRESS_DOMAIN = new TextEncoder().encode("SubAddr\0");

/** The mainnet subaddress (major, minor) of a wallet, from its view key and public spend key. */
function moneroSubaddress(keys: MoneroKeys, major: number, minor: number): string {
  const m = hashToScalar(concatBytes(SUBADDRESS_DOMAIN, keys.viewKeyBytes, u32le(major), u32le(minor)));
  // D = B + m·G (m = 0 happens with probability ~2^-252; then D = B)
  const spend = m === 0n ? keys.spendPoint : keys.spendPoint.add(EdPoint.BASE.multiply(m));
  // C = a·D
  const view = spend.multiply(keys.viewScalar);
  const body = concatBytes(varint(MONERO_MAINNET_SUBADDRESS_PREFIX), spend.toBytes(), view.toBytes());
  return base58xmr.encode(concatBytes(body, keccak_256(body).subarray(0, 4)));
}

const MONERO_MAINNET_ADDRESS_PREFIX = 18;

/** The wallet's primary (standard) mainnet address: spend public key B and view public key a·G. */
export function moneroPrimaryAddress(keys: WatchOnlyKeys): string {
  const parsed = moneroKeys(keys);
  const view = EdPoint.BASE.multiply(parsed.viewScalar);
  const body = concatBytes(
    varint(MONERO_MAINNET_ADDRESS_PREFIX),
    parsed.spendPoint.toBytes(),
    view.toBytes(),
  );
  return base58xmr.encode(concatBytes(body, keccak_256(body).subarray(0, 4)));
}

function varint(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

/** Decodes Monero's block-wise base58; undefined when the text is not a valid encoding. */
export function moneroBase58Decode(text: string): Uint8Array | undefined {
  try {
    return base58xmr.decode(text);
  } catch {
    return undefined;
  }
}

function isValidMoneroSubaddress(address: string): boolean {
  const data = moneroBase58Decode(address);
  // varint prefix (1 byte for 42) || spend key (32) || view key (32) || checksum (4)
  if (data?.length !== 69 || data[0] !== MONERO_MAINNET_SUBADDRESS_PREFIX) return false;
  const body = data.subarray(0, 65);
  const checksum = keccak_256(body).subarray(0, 4);
  if (!checksum.every((byte, i) => byte === data[65 + i])) return false;
  try {
    EdPoint.fromBytes(data.subarray(1, 33));
    EdPoint.fromBytes(data.subarray(33, 65));
  } catch {
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/**
 * The deposit address number `index` (0 <= index < 2^31) of `chain`, from watch-only keys only.
 * Throws RangeError for a bad index and DepositKeyError when the chain's key is missing or unusable.
 */
export function deriveDepositAddress(
  chain: DepositChain,
  keys: WatchOnlyKeys,
  index: number,
  net: SegwitNet = "main",
): string {
  assertIndex(index);
  switch (chain) {
    case "bitcoin":
    case "litecoin":
      return segwitAddress(SEGWIT_HRP[chain][net], childPublicKey(chain, keys, index));
    case "ethereum":
      return ethereumAddress(childPublicKey(chain, keys, index));
    case "tron":
      return tronAddress(childPublicKey(chain, keys, index));
    case "monero":
      // Minor index 0 of account 0 is the wallet's main address, not a subaddress.
      return moneroSubaddress(moneroKeys(keys), 0, index + 1);
    default:
      throw new DepositKeyError(`unknown deposit chain ${String(chain)}`);
  }
}

/**
 * Whether `address` has the form this module derives for `chain` on mainnet, checksum included:
 * P2WPKH bech32 (`bc1q…` / `ltc1q…`), an EIP-55 checksummed `0x…` address, a base58check `T…`
 * address, or a Monero subaddress (`8…`).
 */
export function isValidDepositAddress(
  chain: DepositChain,
  address: string,
  net: SegwitNet = "main",
): boolean {
  if (typeof address !== "string") return false;
  switch (chain) {
    case "bitcoin":
    case "litecoin":
      return p2wpkhProgram(address, SEGWIT_HRP[chain][net]) !== undefined;
    case "ethereum": {
      if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
      return getAddress(address) === address;
    }
    case "tron": {
      try {
        const payload = base58check.decode(address);
        return payload.length === 21 && payload[0] === TRON_PREFIX;
      } catch {
        return false;
      }
    }
    case "monero":
      return isValidMoneroSubaddress(address);
    default:
      return false;
  }
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
export function p2wpkhScriptHex(chain: "bitcoin" | "litecoin", address: string, net: SegwitNet): string {
  const program = p2wpkhProgram(address, SEGWIT_HRP[chain][net]);
  if (!program) throw new RangeError(`not a ${chain} ${net} P2WPKH address: ${address}`);
  return `0014${bytesToHex(program)}`;
}

/**
 * Checks every configured key and lists what is wrong with each, naming the setting
 * (e.g. "DEPOSIT_XPUB_BTC: not an extended public key (…)"); [] when all are usable.
 * Unconfigured (undefined) keys are fine: their coins are simply not offered.
 */
export function validateWatchOnlyKeys(keys: WatchOnlyKeys): string[] {
  const problems: string[] = [];
  for (const chain of BIP32_CHAINS) {
    const text = keys[chain];
    if (text === undefined) continue;
    try {
      parseExtendedPublicKey(text);
    } catch (error) {
      problems.push(`${WATCH_ONLY_KEY_SETTINGS[chain]}: ${(error as Error).message}`);
    }
  }
  if (keys.monero) {
    try {
      parseMoneroViewKey(keys.monero.viewKey);
    } catch (error) {
      problems.push(`${WATCH_ONLY_KEY_SETTINGS.moneroViewKey}: ${(error as Error).message}`);
    }
    try {
      parseMoneroSpendPublicKey(keys.monero.spendPublicKey);
    } catch (error) {
      problems.push(`${WATCH_ONLY_KEY_SETTINGS.moneroSpendPublicKey}: ${(error as Error).message}`);
    }
  }
  return problems;
}

/**
 * Fresh random watch-only keys for demo mode: account-level xpubs (standard xpub version bytes)
 * of a random 32-byte seed for the four BIP32 chains, and a Monero public spend key plus view key.
 * Only public parts and the Monero view key are returned; the seed and spend secrets are dropped,
 * so nothing sent to these addresses can ever be spent.
 */
export function generateDemoWatchOnlyKeys(): Required<WatchOnlyKeys> {
  const seed = randomBytes(32);
  const root = HDKey.fromMasterSeed(seed);
  const xpub = (chain: Bip32Chain): string => {
    const account = root.derive(ACCOUNT_PATHS[chain]);
    const text = account.publicExtendedKey;
    account.wipePrivateData();
    return text;
  };
  const result = {
    bitcoin: xpub("bitcoin"),
    litecoin: xpub("litecoin"),
    ethereum: xpub("ethereum"),
    tron: xpub("tron"),
  };
  root.wipePrivateData();
  seed.fill(0);

  const spendSecret = randomScalar();
  const viewSecret = randomScalar();
  const spendPublicKey = bytesToHex(EdPoint.BASE.multiply(spendSecret).toBytes());
  const viewKey = bytesToHex(numberToBytesLE(viewSecret, 32));
  return { ...result, monero: { viewKey, spendPublicKey } };
}

/** A uniformly random non-zero scalar mod l (64 random bytes reduced, so the bias is negligible). */
function randomScalar(): bigint {
  for (;;) {
    const wide = randomBytes(64);
    const scalar = bytesToNumberLE(wide) % ED_ORDER;
    wide.fill(0);
    if (scalar !== 0n) return scalar;
  }
}
