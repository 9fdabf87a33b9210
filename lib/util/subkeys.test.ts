import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sealData, unsealData } from "iron-session";
import { describe, expect, it } from "vitest";
import { CORE_SETTINGS } from "@/lib/config/env";
import { unseal } from "./seal";
import { deriveSecrets, deriveSubkey, SUBKEY_LABELS } from "./subkeys";

const SESSION_SECRET = "s".repeat(40);
const ENCRYPTION_KEY = "ab".repeat(32);

/**
 * Sealed by the release before subkeys existed, with ENCRYPTION_KEY = "ab" x 32: a TOTP secret of account 7
 * and the root password of server 12, as they sit in databases today.
 */
const SEALED_BEFORE = {
  totp: {
    purpose: "account:7:totp",
    stored: "v1:7x0ybMUDDprXkMVG-ObVTIIoztA5mOfVi4c8D1UfTfZ4Ud_9LbBln6kCJY4",
  },
  rootPassword: {
    purpose: "server:12:root_password",
    stored: "v1:m6B4m_ErhNH5qmfnp1lIAIZb2mVRw05pxKOA8IS_onyeXWSI5mh0UNfgSYSimu1pjQ",
  },
};

const productionConfig = () =>
  CORE_SETTINGS.parse({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-subkeys-")),
    SESSION_SECRET,
    ENCRYPTION_KEY,
    X402_RPC_URL: "https://base.example/rpc",
    X402_PAY_TO: "0x2BCCcf425AC35bc15d9A9466e4f3ce0941fC2738",
    X402_RELAYER_PRIVATE_KEY: `0x${"11".repeat(32)}`,
  });

describe("one key per purpose", () => {
  it("derives RFC 5869 HKDF-SHA256 (test case 3: no salt, no info)", () => {
    const ikm = Buffer.alloc(22, 0x0b);
    expect(deriveSubkey(ikm, "").toString("hex")).toBe(
      "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d",
    );
  });

  it("gives each purpose its own key, none of them the secret it comes from", () => {
    const config = productionConfig();
    const keys = [
      config.sessionPasswords["2"] ?? "",
      config.clientAddressKey.toString("base64url"),
      config.operatorCsrfKey.toString("base64url"),
      config.requestFingerprintKey.toString("base64url"),
      config.encryptionKey.toString("base64url"),
    ];
    expect(new Set(keys).size).toBe(5);
    expect(keys).not.toContain(Buffer.from(SESSION_SECRET).toString("base64url"));
    expect(config.requestFingerprintKey.equals(Buffer.from(ENCRYPTION_KEY, "hex"))).toBe(false);
    expect(config.clientAddressKey.equals(Buffer.from(SESSION_SECRET))).toBe(false);
    expect(new Set(Object.values(SUBKEY_LABELS)).size).toBe(Object.keys(SUBKEY_LABELS).length);
  });

  it("derives the same keys on every instance and after a restart", () => {
    const a = deriveSecrets(SESSION_SECRET, Buffer.from(ENCRYPTION_KEY, "hex"));
    const b = productionConfig();
    expect(b.sessionPasswords).toEqual(a.sessionPasswords);
    expect(b.clientAddressKey.equals(a.clientAddressKey)).toBe(true);
    expect(b.requestFingerprintKey.equals(a.requestFingerprintKey)).toBe(true);
    const other = deriveSecrets("t".repeat(40), Buffer.alloc(32, 1));
    expect(other.clientAddressKey.equals(a.clientAddressKey)).toBe(false);
    expect(other.requestFingerprintKey.equals(a.requestFingerprintKey)).toBe(false);
  });

  it("keeps reading what ENCRYPTION_KEY sealed before: TOTP secrets and root passwords", () => {
    const config = productionConfig();
    const { totp, rootPassword } = SEALED_BEFORE;
    expect(unseal(config.encryptionKey, totp.purpose, totp.stored)).toBe("JBSWY3DPEHPK3PXP");
    expect(unseal(config.encryptionKey, rootPassword.purpose, rootPassword.stored)).toBe(
      "correct horse battery",
    );
  });

  it("seals new cookies with the derived password and still opens those sealed with SESSION_SECRET", async () => {
    const { sessionPasswords } = productionConfig();
    const before = await sealData({ apiKey: "vpsk_before" }, { password: SESSION_SECRET });
    expect(await unsealData(before, { password: sessionPasswords })).toEqual({ apiKey: "vpsk_before" });
    const now = await sealData({ apiKey: "vpsk_now" }, { password: sessionPasswords });
    expect(await unsealData(now, { password: sessionPasswords })).toEqual({ apiKey: "vpsk_now" });
    // Not sealed under SESSION_SECRET itself: with it alone the cookie does not open.
    expect(await unsealData(now, { password: SESSION_SECRET })).toEqual({});
    expect(await unsealData(now, { password: { "2": sessionPasswords["2"] ?? "" } })).toEqual({
      apiKey: "vpsk_now",
    });
  });
});
