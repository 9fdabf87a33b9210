/**
 * The credentials of an account: API keys (Bearer) and the dashboard login token, both random, shown once and
 * stored only as SHA-256 hashes; and, with TOTP on, recovery codes, stored only as salted scrypt hashes.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";
import { base32crockford } from "@scure/base";

export const API_KEY_PREFIX = "vpsk_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 43 base62 characters carry 256 bits: twice the 128 the key must have at least. */
const KEY_RANDOM_CHARS = 43;
const KEY_CHECKSUM_CHARS = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${KEY_RANDOM_CHARS + KEY_CHECKSUM_CHARS}}$`);
/** How much of a key is kept and shown to tell keys apart: the prefix plus 8 random characters. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

/** Crockford's base32 alphabet: no I, L, O or U, so a token read aloud or retyped stays unambiguous. */
export const TOKEN_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Uniform random characters from `alphabet` (rejection sampling, so no character is favoured). */
export function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

function base62Fixed(value: number, width: number): string {
  let rest = value;
  let out = "";
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

const checksum = (body: string) => base62Fixed(crc32(body), KEY_CHECKSUM_CHARS);

export const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

export type NewApiKey = { key: string; hash: string; prefix: string };

/** A fresh API key: `vpsk_`, 256 random bits in base62, and a CRC32 checksum that catches typos offline. */
export function generateApiKey(): NewApiKey {
  const body = randomString(BASE62, KEY_RANDOM_CHARS);
  const key = `${API_KEY_PREFIX}${body}${checksum(body)}`;
  return { key, hash: sha256Hex(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** True when `candidate` has the shape and checksum of a key we issue; no database needed to reject the rest. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + KEY_RANDOM_CHARS);
  return candidate.endsWith(checksum(body));
}

export type NewLoginToken = { token: string; hash: string };

/** A login token of four groups of four characters (80 random bits), e.g. `7KQF-9XMA-2PDZ-T4WB`. */
export function generateLoginToken(): NewLoginToken {
  // 10 bytes are exactly 16 Crockford characters: no padding, every character uniform.
  const chars = base32crockford.encode(randomBytes(10));
  const token = chars.match(/.{4}/g)?.join("-") ?? chars;
  return { token, hash: sha256Hex(token) };
}

/**
 * Brings a typed Crockford code to its canonical form: upper case, groups of four joined by hyphens, and the
 * look-alike letters O, I and L read as 0, 1 and 1. Returns undefined unless it has exactly `length` characters.
 */
export function normalizeCrockford(input: string, length: number): string | undefined {
  const chars = input.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (chars.length !== length || [...chars].some((c) => !TOKEN_ALPHABET.includes(c))) return undefined;
  return chars.match(/.{4}/g)?.join("-");
}

/** A typed login token in canonical form (see normalizeCrockford), or undefined when it cannot be a token. */
export const normalizeLoginToken = (input: string) => normalizeCrockford(input, 16);

/** How many recovery codes a set holds. */
export const RECOVERY_CODE_COUNT = 10;
/** 12 Crockford characters: 60 random bits, in three groups of four, e.g. `4K9Q-XW2M-T7HD`. */
const RECOVERY_CODE_CHARS = 12;
export const RECOVERY_CODE_BITS = RECOVERY_CODE_CHARS * 5;

/** A typed recovery code in canonical form, or undefined when it cannot be one. */
export const normalizeRecoveryCode = (input: string) => normalizeCrockford(input, RECOVERY_CODE_CHARS);

/**
 * scrypt at 16 MiB: codes of 60 bits are below the 112 at which a plain hash would do, so each is stored
 * under a salted, memory-hard hash. One hash per attempt costs the server a few tens of milliseconds.
 */
const SCRYPT = { N: 2 ** 14, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

function scryptHash(code: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const maxmem = 256 * cost.N * cost.r; // twice what scrypt needs
  return new Promise((resolve, reject) => {
    scrypt(code, salt, HASH_BYTES, { ...cost, maxmem }, (error, hash) =>
      error ? reject(error) : resolve(hash),
    );
  });
}

/** One recovery code, in canonical form. */
export function newRecoveryCode(): string {
  const chars = randomString(TOKEN_ALPHABET, RECOVERY_CODE_CHARS);
  return chars.match(/.{4}/g)?.join("-") ?? chars;
}

export type NewRecoveryCodes = { codes: string[]; hashes: string[] };

/**
 * A fresh set of recovery codes and what to store for them: `scrypt$N$r$p$salt$hash` (base64url), one salt
 * for the set, so checking a typed code costs one hash however many codes are left.
 */
export async function generateRecoveryCodes(): Promise<NewRecoveryCodes> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p } = SCRYPT;
  const prefix = `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}`;
  const hashes = await Promise.all(
    codes.map(async (code) => `${prefix}$${(await scryptHash(code, salt, SCRYPT)).toString("base64url")}`),
  );
  return { codes, hashes };
}

/** A stored hash taken apart, or undefined when it is not one this module wrote. */
function parseStoredHash(stored: string) {
  const match = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([\w-]+)\$([\w-]+)$/.exec(stored);
  if (!match) return undefined;
  const [, N, r, p, salt = "", hash = ""] = match;
  return {
    setting: stored.slice(0, stored.lastIndexOf("$")),
    cost: { N: Number(N), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt, "base64url"),
    hash: Buffer.from(hash, "base64url"),
  };
}

/**
 * Which of the `stored` hashes the typed code (canonical form) matches: its index, or -1. The code is hashed
 * once per distinct salt and cost (one for a set) and compared in constant time.
 */
export async function matchRecoveryCode(code: string, stored: string[]): Promise<number> {
  const parsed = stored.map(parseStoredHash);
  const computed = new Map<string, Promise<Buffer>>();
  for (const entry of parsed) {
    if (entry && !computed.has(entry.setting)) {
      computed.set(entry.setting, scryptHash(code, entry.salt, entry.cost));
    }
  }
  for (const [index, entry] of parsed.entries()) {
    if (!entry) continue;
    const hash = await computed.get(entry.setting);
    if (hash && hash.length === entry.hash.length && timingSafeEqual(hash, entry.hash)) return index;
  }
  return -1;
}
