/**
 * An operator's credentials: the sign-in secret printed once by `npm run operator:add` (kept as its SHA-256),
 * the TOTP secret it comes with (sealed), the session token of the cookie (kept as its SHA-256) and the CSRF
 * token derived from it. None of them resembles a customer's key, token or code, so neither can be mistaken
 * for the other.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Secret } from "otpauth";
import { normalizeCrockford, randomString, sha256Hex, TOKEN_ALPHABET } from "@/lib/accounts/credentials";
import { totpFor } from "@/lib/accounts/totp";

/** 28 Crockford characters (140 random bits) in seven groups of four, after `op-`. */
const SECRET_CHARS = 28;
const SECRET_PREFIX = "op-";

export type NewOperatorSecret = { secret: string; hash: string };

export function generateOperatorSecret(): NewOperatorSecret {
  const chars = randomString(TOKEN_ALPHABET, SECRET_CHARS);
  const secret = `${SECRET_PREFIX}${chars.match(/.{4}/g)?.join("-") ?? chars}`;
  return { secret, hash: sha256Hex(secret) };
}

/** A typed or pasted secret in canonical form, or undefined when it cannot be one (no lookup needed). */
export function normalizeOperatorSecret(input: string): string | undefined {
  const trimmed = input.trim();
  if (!trimmed.toLowerCase().startsWith(SECRET_PREFIX)) return undefined;
  const body = normalizeCrockford(trimmed.slice(SECRET_PREFIX.length), SECRET_CHARS);
  return body === undefined ? undefined : `${SECRET_PREFIX}${body}`;
}

export const operatorSecretHash = (secret: string) => sha256Hex(secret);

/** What seals an operator's TOTP secret: bound to its name, so a sealed value moved to another row fails. */
export const operatorTotpPurpose = (name: string) => `operator:${name}:totp`;

/** A fresh TOTP secret and the otpauth:// URI an authenticator app takes it from. */
export function generateOperatorTotp(name: string): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 });
  return {
    secret: secret.base32,
    uri: totpFor(secret, `operator ${name}`, "Prepaid VPS operators").toString(),
  };
}

const SESSION_PREFIX = "vpsop_";

/** The operator session cookie's value: 256 random bits. */
export function generateOperatorSessionToken(): { token: string; hash: string } {
  const token = `${SESSION_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, hash: sha256Hex(token) };
}

export const isWellFormedSessionToken = (value: string) => /^vpsop_[A-Za-z0-9_-]{43}$/.test(value);

/** The session's CSRF token: an HMAC of its cookie, so nothing more is stored and only its pages know it. */
export function csrfTokenFor(key: Buffer, sessionToken: string): string {
  return createHmac("sha256", key).update(sessionToken).digest("base64url");
}

export function csrfTokenMatches(key: Buffer, sessionToken: string, presented: string | null): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenFor(key, sessionToken));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Operator names: what `operator:add` accepts and the database's CHECK enforces. */
export const OPERATOR_NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;
