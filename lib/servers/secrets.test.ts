import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptRootPassword, encryptRootPassword, generateRootPassword } from "./secrets";

const key = randomBytes(32);

describe("root password encryption", () => {
  it("round-trips, with a fresh nonce every time", () => {
    const a = encryptRootPassword(key, 7, "correct horse battery");
    const b = encryptRootPassword(key, 7, "correct horse battery");
    expect(a).not.toBe(b);
    expect(a).not.toContain("correct");
    expect(decryptRootPassword(key, 7, a)).toBe("correct horse battery");
  });

  it("refuses another server's id, another key and a tampered ciphertext", () => {
    const stored = encryptRootPassword(key, 7, "s3cret-password");
    expect(() => decryptRootPassword(key, 8, stored)).toThrow();
    expect(() => decryptRootPassword(randomBytes(32), 7, stored)).toThrow();
    const bytes = Buffer.from(stored.slice(3), "base64url");
    bytes[14] = (bytes[14] ?? 0) ^ 1;
    expect(() => decryptRootPassword(key, 7, `v1:${bytes.toString("base64url")}`)).toThrow();
    expect(() => decryptRootPassword(key, 7, "v0:abc")).toThrow();
  });
});

describe("generateRootPassword", () => {
  it("is 24 characters from an unambiguous alphabet, different every time", () => {
    const passwords = new Set(Array.from({ length: 200 }, generateRootPassword));
    expect(passwords.size).toBe(200);
    for (const password of passwords) expect(password).toMatch(/^[a-km-zA-HJ-NP-Z2-9\-_.@%+=]{24}$/);
  });
});
