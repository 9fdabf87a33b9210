/**
 * The two credentials of an account: API keys (Bearer) and the dashboard login token.
 * Both are random, shown once, and stored only as SHA-256 hashes.
 */
import { createHash, randomBytes } from "node:crypto";
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
const TOKEN_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

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
 * Brings a typed login token to its canonical form: upper case, groups joined by hyphens,
 * and the look-alike letters O, I and L read as 0, 1 and 1. Returns undefined when it cannot be a token.
 */
export function normalizeLoginToken(input: string): string | undefined {
  const chars = input.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (chars.length !== 16 || [...chars].some((c) => !TOKEN_ALPHABET.includes(c))) return undefined;
  return chars.match(/.{4}/g)?.join("-");
}
