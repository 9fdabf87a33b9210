import ssh2 from "ssh2";
import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/api/errors";
import { generateEd25519KeyPair, normalizeSshKeys } from "./ssh-keys";

const { utils } = ssh2;

describe("ssh keys at order", () => {
  it("accepts ed25519, ecdsa and 2048-bit RSA public keys, one clean line each", () => {
    const ed = generateEd25519KeyPair().public;
    const ec = utils.generateKeyPairSync("ecdsa", { bits: 256 }).public;
    const rsa = utils.generateKeyPairSync("rsa", { bits: 2048 }).public;
    const [a, b, c] = normalizeSshKeys([`  ${ed.trim()}  me@laptop `, ec, rsa]);
    expect(a).toMatch(/^ssh-ed25519 AAAA\S+ me@laptop$/);
    expect(b).toMatch(/^ecdsa-sha2-nistp256 AAAA\S+/);
    expect(c).toMatch(/^ssh-rsa AAAA\S+/);
  });

  it.each([
    ["garbage", "not a supported"],
    ["ssh-ed25519 AAAAnotbase64", "not a valid"],
    ["ssh-dss AAAAB3NzaC1kc3M", "not a supported"],
    ["ssh-ed25519 AAAA\nssh-ed25519 BBBB", "one key per entry"],
  ])("refuses %j with invalid_ssh_key", (key, why) => {
    try {
      normalizeSshKeys([key]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe("invalid_ssh_key");
      expect((error as ApiError).message).toContain(why);
    }
  });

  it("refuses private keys, a body of another type, and short RSA keys", () => {
    const pair = generateEd25519KeyPair();
    expect(() => normalizeSshKeys([pair.private])).toThrow(/one key per entry|not a supported/);
    const ed = pair.public.split(" ")[1];
    expect(() => normalizeSshKeys([`ssh-rsa ${ed}`])).toThrow(/not a valid/);
    const small = utils.generateKeyPairSync("rsa", { bits: 1024 }).public;
    expect(() => normalizeSshKeys([small])).toThrow(/2048 bits/);
  });

  it("makes ed25519 pairs OpenSSH takes, also where ssh2's generator alone would not (about 1 in 256)", () => {
    // 2,048 draws meet a 31-byte public key from ssh2's generator with a chance of 1 - (255/256)^2048 > 99.9%.
    for (let draw = 0; draw < 2048; draw++) {
      const pair = generateEd25519KeyPair();
      expect(normalizeSshKeys([pair.public])).toHaveLength(1);
      const parsed = utils.parseKey(pair.private);
      if (parsed instanceof Error || Array.isArray(parsed))
        throw new Error(`draw ${draw}: private key refused`);
      expect(parsed.getPublicSSH().toString("base64")).toBe(pair.public.split(" ")[1]);
    }
  });
});
