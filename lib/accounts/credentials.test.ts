import { describe, expect, it } from "vitest";
import {
  API_KEY_PREFIX,
  generateApiKey,
  generateLoginToken,
  isWellFormedApiKey,
  normalizeLoginToken,
  sha256Hex,
} from "./credentials";

describe("API keys", () => {
  it("are vpsk_ + 49 base62 characters, hashed with SHA-256, shown by a 13-character prefix", () => {
    const { key, hash, prefix } = generateApiKey();
    expect(key).toMatch(/^vpsk_[0-9A-Za-z]{49}$/);
    expect(hash).toBe(sha256Hex(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(prefix).toBe(key.slice(0, 13));
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
  });

  it("never repeat and carry well over 128 bits", () => {
    const keys = new Set(Array.from({ length: 20_000 }, () => generateApiKey().key));
    expect(keys.size).toBe(20_000);
    // 43 random base62 characters: log2(62) x 43 = 256 bits.
    expect(Math.log2(62) * 43).toBeGreaterThan(128);
  });

  it("use every base62 character about equally (no modulo bias)", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      for (const c of generateApiKey().key.slice(5, 48)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (3000 * 43) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.15);
  });

  it("are recognised offline by their checksum", () => {
    const { key } = generateApiKey();
    expect(isWellFormedApiKey(key)).toBe(true);
    const flipped = key.slice(0, 20) + (key[20] === "a" ? "b" : "a") + key.slice(21);
    expect(isWellFormedApiKey(flipped)).toBe(false);
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey(key.replace("vpsk_", "vpsx_"))).toBe(false);
    expect(isWellFormedApiKey("")).toBe(false);
  });
});

describe("login tokens", () => {
  it("are four groups of four unambiguous characters", () => {
    for (let i = 0; i < 200; i++) {
      const { token, hash } = generateLoginToken();
      expect(token).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
      expect(hash).toBe(sha256Hex(token));
    }
  });

  it("normalise what people type: case, spaces, missing hyphens, O/I/L look-alikes", () => {
    expect(normalizeLoginToken("7kqf 9xma 2pdz t4wb")).toBe("7KQF-9XMA-2PDZ-T4WB");
    expect(normalizeLoginToken("7KQF9XMA2PDZT4WB")).toBe("7KQF-9XMA-2PDZ-T4WB");
    expect(normalizeLoginToken("OOOO-IIII-LLLL-0000")).toBe("0000-1111-1111-0000");
    expect(normalizeLoginToken("7KQF-9XMA-2PDZ")).toBeUndefined();
    expect(normalizeLoginToken("7KQF-9XMA-2PDZ-T4W!")).toBeUndefined();
    expect(normalizeLoginToken("UUUU-9XMA-2PDZ-T4WB")).toBeUndefined();
  });
});
