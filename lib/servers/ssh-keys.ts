import ssh2 from "ssh2";
import { badRequest } from "@/lib/api/errors";

const { utils } = ssh2;
const ALLOWED = new Set([
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
]);

/** An ed25519 key's public half is 32 bytes; its blob is "ssh-ed25519" and that, each length-prefixed. */
const ED25519_BLOB_BYTES = 4 + "ssh-ed25519".length + 4 + 32;

/**
 * A new ed25519 key pair in OpenSSH's formats. ssh2's generator (1.17) strips the leading zero bytes of the
 * public key itself, so about one pair in 256 comes out with a 31-byte key that OpenSSH and ssh2's own parser
 * refuse: such a pair is drawn again.
 */
export function generateEd25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync("ed25519");
    const body = pair.public.trim().split(/\s+/)[1] ?? "";
    if (Buffer.from(body, "base64").length === ED25519_BLOB_BYTES) return pair;
  }
}

/**
 * Checks OpenSSH public keys ("type base64 [comment]") and returns them as single clean lines. A private
 * key, an unknown type, a key whose body does not match its type, or RSA under 2048 bits is refused.
 */
export function normalizeSshKeys(keys: string[]): string[] {
  return keys.map((text, index) => {
    const refuse = (why: string) =>
      badRequest(
        "invalid_ssh_key",
        `ssh_keys[${index}]: ${why}; paste an OpenSSH public key (ssh-ed25519 AAAA...).`,
      );
    const line = text.trim();
    if (/[\r\n]/.test(line)) throw refuse("one key per entry, on one line");
    const [type, body, ...comment] = line.split(/\s+/);
    if (!type || !body || !ALLOWED.has(type)) throw refuse("not a supported public key type");
    const parsed = utils.parseKey(`${type} ${body}`);
    if (parsed instanceof Error || Array.isArray(parsed)) throw refuse("not a valid public key");
    if (parsed.isPrivateKey() || parsed.type !== type) throw refuse("not a valid public key");
    if (type === "ssh-rsa") {
      // The modulus is the last length-prefixed field of the ssh-rsa blob.
      const blob = parsed.getPublicSSH();
      let offset = 0;
      let last: Buffer = Buffer.alloc(0);
      while (offset + 4 <= blob.length) {
        const length = blob.readUInt32BE(offset);
        last = blob.subarray(offset + 4, offset + 4 + length);
        offset += 4 + length;
      }
      const bits = (last.length - (last[0] === 0 ? 1 : 0)) * 8;
      if (bits < 2048) throw refuse("RSA keys need at least 2048 bits");
    }
    const cleanComment = comment
      .join(" ")
      .replace(/[^\x20-\x7e]/g, "")
      .slice(0, 200);
    return cleanComment ? `${type} ${body} ${cleanComment}` : `${type} ${body}`;
  });
}
