import { Secret, TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import { isWellFormedApiKey, normalizeLoginToken } from "@/lib/accounts/credentials";
import {
  csrfTokenFor,
  csrfTokenMatches,
  generateOperatorSecret,
  generateOperatorSessionToken,
  generateOperatorTotp,
  isWellFormedSessionToken,
  normalizeOperatorSecret,
  operatorSecretHash,
} from "./credentials";

describe("an operator's credentials", () => {
  it("a sign-in secret carries 140 random bits, is kept as its SHA-256, and forgives case and look-alikes", () => {
    const { secret, hash } = generateOperatorSecret();
    expect(secret).toMatch(/^op-([0-9A-HJKMNP-TV-Z]{4}-){6}[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(hash).toBe(operatorSecretHash(secret));
    expect(generateOperatorSecret().secret).not.toBe(secret);
    const typed = ` ${secret.toLowerCase().replaceAll("0", "o").replaceAll("-", " ")} `;
    expect(normalizeOperatorSecret(typed.replace(/^ op /, "op-"))).toBe(secret);
    expect(normalizeOperatorSecret(secret.slice(0, -1))).toBeUndefined();
    // Nothing a customer holds can pass for it.
    expect(normalizeOperatorSecret("7KQF-9XMA-2PDZ-T4WB")).toBeUndefined();
    expect(isWellFormedApiKey(secret)).toBe(false);
    expect(normalizeLoginToken(secret)).toBeUndefined();
  });

  it("comes with a TOTP secret an authenticator app reads from its otpauth URI", () => {
    const totp = generateOperatorTotp("alice");
    expect(totp.uri).toMatch(/^otpauth:\/\/totp\/Prepaid%20VPS%20operators:operator%20alice\?/);
    const code = new TOTP({ secret: Secret.fromBase32(totp.secret) }).generate();
    expect(new URL(totp.uri).searchParams.get("secret")).toBe(totp.secret);
    expect(code).toMatch(/^\d{6}$/);
  });

  it("a session token carries 256 bits; its CSRF token is bound to it and to the key", () => {
    const { token, hash } = generateOperatorSessionToken();
    expect(isWellFormedSessionToken(token)).toBe(true);
    expect(isWellFormedSessionToken(`vpsk_${token.slice(6)}`)).toBe(false);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const key = Buffer.alloc(32, 1);
    const csrf = csrfTokenFor(key, token);
    expect(csrfTokenMatches(key, token, csrf)).toBe(true);
    expect(csrfTokenMatches(key, token, null)).toBe(false);
    expect(csrfTokenMatches(key, token, `${csrf}x`)).toBe(false);
    expect(csrfTokenMatches(key, generateOperatorSessionToken().token, csrf)).toBe(false);
    expect(csrfTokenMatches(Buffer.alloc(32, 2), token, csrf)).toBe(false);
  });
});
