import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a random 96-bit nonce; stored as `v1:` + base64url(iv | ciphertext | tag). The
 * additional data names what the secret belongs to, so a ciphertext copied to another row does not decrypt.
 */
export function seal(key: Buffer, purpose: string, plaintext: string): string {
  if (key.length !== 32) throw new RangeError("the encryption key must be 32 bytes");
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(purpose, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
}

/** Decrypts and authenticates; throws if the ciphertext, its purpose or the key do not match. */
export function unseal(key: Buffer, purpose: string, stored: string): string {
  const [version, encoded] = stored.split(":");
  if (version !== VERSION || !encoded) throw new Error("unknown secret encoding");
  const bytes = Buffer.from(encoded, "base64url");
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error("secret ciphertext too short");
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(purpose, "utf8"));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
    decipher.final(),
  ]).toString("utf8");
}
