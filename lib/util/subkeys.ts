import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";

/**
 * The purposes the two configured secrets serve, each with its own HKDF label. A key derived under one label
 * tells nothing about a key derived under another, so no value this service computes with one purpose's key
 * (a signed client address, a request fingerprint) can stand in for another's.
 */
export const SUBKEY_LABELS = {
  /** SESSION_SECRET -> the password iron-session seals the dashboard cookie with. */
  sessionCookie: "prepaid-vps session-cookie v1",
  /** SESSION_SECRET -> the HMAC key that signs the client address the dashboard passes to the API. */
  clientAddress: "prepaid-vps client-address-signature v1",
  /** SESSION_SECRET -> the HMAC key that ties an operator session's CSRF token to its cookie. */
  operatorCsrf: "prepaid-vps operator-csrf v1",
  /** ENCRYPTION_KEY -> the HMAC key of secrets inside stored request fingerprints (idempotency). */
  requestFingerprint: "prepaid-vps request-fingerprint v1",
  /** ENCRYPTION_KEY -> the HMAC key that signs a resize quote, so its price holds without being stored. */
  resizeQuote: "prepaid-vps resize-quote v1",
} as const;

/** HKDF-SHA256 (RFC 5869) of `secret` under `label`: 32 bytes, the same for the same inputs on every instance. */
export function deriveSubkey(secret: string | Uint8Array, label: string): Buffer {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const input = typeof secret === "string" ? bytes(secret) : secret;
  return Buffer.from(hkdf(sha256, input, undefined, bytes(label), 32));
}

export type DerivedSecrets = {
  /**
   * iron-session's passwords by id: it seals with the highest id and opens any. Id 1 is SESSION_SECRET itself,
   * which sealed every cookie before the derived password existed: such cookies are still read (so an upgrade
   * signs nobody out) but never written again, and die with their session keys within 7 days.
   */
  sessionPasswords: Record<string, string>;
  clientAddressKey: Buffer;
  operatorCsrfKey: Buffer;
  requestFingerprintKey: Buffer;
};

/**
 * The keys of every purpose but one: ENCRYPTION_KEY itself stays the AES-256-GCM key that seals root passwords
 * and TOTP secrets. Every stored ciphertext was sealed under it; deriving a new sealing key would need all of
 * them re-sealed, and an older release (after a rollback) could not open what a newer one sealed. With the
 * fingerprint key derived, sealing is the raw key's only use.
 */
export function deriveSecrets(sessionSecret: string, encryptionKey: Uint8Array): DerivedSecrets {
  return {
    sessionPasswords: {
      "1": sessionSecret,
      "2": deriveSubkey(sessionSecret, SUBKEY_LABELS.sessionCookie).toString("base64url"),
    },
    clientAddressKey: deriveSubkey(sessionSecret, SUBKEY_LABELS.clientAddress),
    operatorCsrfKey: deriveSubkey(sessionSecret, SUBKEY_LABELS.operatorCsrf),
    requestFingerprintKey: deriveSubkey(encryptionKey, SUBKEY_LABELS.requestFingerprint),
  };
}
