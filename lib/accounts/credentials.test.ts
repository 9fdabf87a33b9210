import { describe, expect, it } from "vitest";
import {
  API_KEY_PREFIX,
  generateApiKey,
  generateLoginToken,
  generateRecoveryCodes,
  isWellFormedApiKey,
  matchRecoveryCode,
  newRecoveryCode,
  normalizeLoginToken,
  normalizeRecoveryCode,
  RECOVERY_CODE_BITS,
  RECOVERY_CODE_COUNT,
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

// scrypt takes its time, more so on a busy machine.
describe("recovery codes", { timeout: 30_000 }, () => {
  it("come ten to a set, each 12 unambiguous characters (60 random bits) in groups of four", async () => {
    const { codes, hashes } = await generateRecoveryCodes();
    expect(RECOVERY_CODE_COUNT).toBe(10);
    expect(RECOVERY_CODE_BITS).toBe(60);
    expect(codes).toHaveLength(10);
    expect(hashes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){2}$/);
    expect(new Set(codes).size).toBe(10);
  });

  it("use every character of the alphabet about equally (no bias from the random source)", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 400; i++) {
      for (const c of newRecoveryCode().replaceAll("-", "")) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    // 4800 characters over 32 symbols: 150 each on average.
    expect(counts.size).toBe(32);
    for (const n of counts.values()) expect(n).toBeGreaterThan(90);
  });

  it("are stored as salted scrypt hashes that hold nothing of the code, one salt per set", async () => {
    const first = await generateRecoveryCodes();
    const second = await generateRecoveryCodes();
    for (const [i, hash] of first.hashes.entries()) {
      expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      const code = first.codes[i] ?? "";
      expect(hash).not.toContain(code);
      expect(hash).not.toContain(code.replaceAll("-", ""));
    }
    const salt = (hash: string) => hash.split("$")[4];
    expect(new Set(first.hashes.map(salt)).size).toBe(1);
    expect(salt(first.hashes[0] ?? "")).not.toBe(salt(second.hashes[0] ?? ""));
  });

  it("match the hash of the code typed, in any spelling, and nothing else", async () => {
    const { codes, hashes } = await generateRecoveryCodes();
    const third = codes[2] ?? "";
    expect(await matchRecoveryCode(third, hashes)).toBe(2);
    const typed = normalizeRecoveryCode(third.toLowerCase().replaceAll("-", " ")) ?? "";
    expect(await matchRecoveryCode(typed, hashes)).toBe(2);
    const other = (await generateRecoveryCodes()).codes[0] ?? "";
    expect(await matchRecoveryCode(other, hashes)).toBe(-1);
    expect(await matchRecoveryCode(third, ["garbage", ...hashes])).toBe(3);
    expect(await matchRecoveryCode(third, [])).toBe(-1);
  });

  it("normalise what people type, and refuse what cannot be a code", () => {
    expect(normalizeRecoveryCode("4k9q xw2m t7hd")).toBe("4K9Q-XW2M-T7HD");
    expect(normalizeRecoveryCode("OIL0-1111-2222")).toBe("0110-1111-2222");
    expect(normalizeRecoveryCode("4K9Q-XW2M")).toBeUndefined();
    expect(normalizeRecoveryCode("4K9Q-XW2M-T7HD-AAAA")).toBeUndefined();
    expect(normalizeRecoveryCode("UUUU-XW2M-T7HD")).toBeUndefined();
    expect(normalizeRecoveryCode("492039")).toBeUndefined();
  });
});
