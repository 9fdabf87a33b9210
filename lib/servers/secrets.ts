import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { randomString } from "@/lib/accounts/credentials";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The additional data binds a ciphertext to its server: a password copied to another row does not decrypt. */
const aad = (serverId: number) => Buffer.from(`server:${serverId}:root_password`, "utf8");

/** AES-256-GCM with a random 96-bit nonce; stored as `v1:` + base64url(iv | ciphertext | tag). */
export function encryptRootPassword(key: Buffer, serverId: number, password: string): string {
  if (key.length !== 32) throw new RangeError("the encryption key must be 32 bytes");
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aad(serverId));
  const body = Buffer.concat([cipher.update(password, "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`;
}

/** Decrypts and authenticates; throws if the ciphertext, its server id or the key do not match. */
export function decryptRootPassword(key: Buffer, serverId: number, stored: string): string {
  const [version, encoded] = stored.split(":");
  if (version !== VERSION || !encoded) throw new Error("unknown password encoding");
  const bytes = Buffer.from(encoded, "base64url");
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error("password ciphertext too short");
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(aad(serverId));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
    decipher.final(),
  ]).toString("utf8");
}

/** Letters and digits without look-alikes (0/O, 1/l/I), plus a few symbols every console accepts. */
const PASSWORD_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.@%+=";

/** A generated root password: 24 characters, about 143 bits. */
export const generateRootPassword = () => randomString(PASSWORD_ALPHABET, 24);
