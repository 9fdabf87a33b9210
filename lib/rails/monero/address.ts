import "server-only";
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, hexToBytes, randomBytes } from "@noble/hashes/utils.js";
import { base58xmr } from "@scure/base";
import { DepositKeyError } from "../deposits/keys";
import type { ChainKeys } from "../family";

/**
 * Monero deposit addresses: the subaddress (account 0, minor index + 1) of the wallet, from its private *view*
 * key (which lets the server see incoming payments but not spend them) and its public spend key.
 */
export type MoneroKeyPair = { viewKey: string; spendPublicKey: string };

const SETTINGS = { viewKey: "DEPOSIT_XMR_VIEW_KEY", spendPublicKey: "DEPOSIT_XMR_SPEND_PUBLIC_KEY" } as const;
const MONERO_MAINNET_SUBADDRESS_PREFIX = 42;

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

function moneroKeys(monero: MoneroKeyPair | undefined): MoneroKeys {
  if (!monero) {
    throw new DepositKeyError(
      `${SETTINGS.viewKey}/${SETTINGS.spendPublicKey}: no watch-only key configured for monero`,
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
    throw new DepositKeyError(`${SETTINGS.viewKey}: ${(error as Error).message}`);
  }
  try {
    spendPoint = parseMoneroSpendPublicKey(monero.spendPublicKey);
  } catch (error) {
    throw new DepositKeyError(`${SETTINGS.spendPublicKey}: ${(error as Error).message}`);
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
export function moneroPrimaryAddress(keys: { monero?: MoneroKeyPair }): string {
  const parsed = moneroKeys(keys.monero);
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

/** A uniformly random non-zero scalar mod l (64 random bytes reduced, so the bias is negligible). */
function randomScalar(): bigint {
  for (;;) {
    const wide = randomBytes(64);
    const scalar = bytesToNumberLE(wide) % ED_ORDER;
    wide.fill(0);
    if (scalar !== 0n) return scalar;
  }
}

export const MONERO_KEYS: ChainKeys<MoneroKeyPair> = {
  chain: "monero",
  settings: SETTINGS,
  read: (values) =>
    values[SETTINGS.viewKey] || values[SETTINGS.spendPublicKey]
      ? { viewKey: values[SETTINGS.viewKey] ?? "", spendPublicKey: values[SETTINGS.spendPublicKey] ?? "" }
      : undefined,
  problems(key) {
    const problems: string[] = [];
    try {
      parseMoneroViewKey(key.viewKey);
    } catch (error) {
      problems.push(`${SETTINGS.viewKey}: ${(error as Error).message}`);
    }
    try {
      parseMoneroSpendPublicKey(key.spendPublicKey);
    } catch (error) {
      problems.push(`${SETTINGS.spendPublicKey}: ${(error as Error).message}`);
    }
    return problems;
  },
  // Minor index 0 of account 0 is the wallet's main address, not a subaddress.
  derive: (key, index) => moneroSubaddress(moneroKeys(key), 0, index + 1),
  isValidAddress: (address) => isValidMoneroSubaddress(address),
  /** A Monero public spend key (its secret dropped) and a view key. */
  demoKey() {
    const spendSecret = randomScalar();
    const viewSecret = randomScalar();
    return {
      viewKey: bytesToHex(numberToBytesLE(viewSecret, 32)),
      spendPublicKey: bytesToHex(EdPoint.BASE.multiply(spendSecret).toBytes()),
    };
  },
  env: (key) => ({ [SETTINGS.viewKey]: key.viewKey, [SETTINGS.spendPublicKey]: key.spendPublicKey }),
};
