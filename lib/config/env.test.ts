import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./env";

const dataDir = () => mkdtempSync(path.join(tmpdir(), "vps-config-"));
const SECRET = "s".repeat(40);
const KEY = "ab".repeat(32);

describe("configuration", () => {
  it("defaults to demo mode with secrets generated once into DATA_DIR", () => {
    const dir = dataDir();
    const first = parseConfig({ DATA_DIR: dir });
    expect(first.mode).toBe("demo");
    expect(first.port).toBe(3000);
    expect(first.databaseUrl).toBeUndefined();
    expect(first.encryptionKey).toHaveLength(32);
    const file = path.join(dir, "demo-secrets.json");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = parseConfig({ DATA_DIR: dir });
    expect(second.sessionSecret).toBe(first.sessionSecret);
    expect(JSON.parse(readFileSync(file, "utf8")).sessionSecret).toBe(first.sessionSecret);
  });

  it("switches to production when production secrets are given, generating nothing", () => {
    const dir = dataDir();
    const config = parseConfig({ DATA_DIR: dir, SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY });
    expect(config.mode).toBe("production");
    expect(existsSync(path.join(dir, "demo-secrets.json"))).toBe(false);
  });

  it("names every missing production variable", () => {
    expect(() => parseConfig({ DATA_DIR: dataDir(), SESSION_SECRET: SECRET })).toThrow(
      /ENCRYPTION_KEY: required/,
    );
    expect(() => parseConfig({ DATA_DIR: dataDir(), APP_MODE: "production" })).toThrow(
      /SESSION_SECRET[\s\S]*ENCRYPTION_KEY/,
    );
  });

  it.each([
    [{ PORT: "seventy" }, /PORT/],
    [{ PORT: "70000" }, /PORT/],
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL: must be a postgres/],
    [{ SESSION_SECRET: "short" }, /SESSION_SECRET: must be at least 32/],
    [{ ENCRYPTION_KEY: "xyz" }, /ENCRYPTION_KEY: must be 64 hex/],
    [{ RATE_LIMIT_ACCOUNT_CREATE: "ten per hour" }, /RATE_LIMIT_ACCOUNT_CREATE: expected COUNT\/WINDOW/],
    [{ APP_MODE: "staging" }, /APP_MODE/],
  ])("refuses %j with a clear message", (env, message) => {
    const attempt = () => parseConfig({ DATA_DIR: dataDir(), ...env });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });

  it("reads rate limits written as COUNT/WINDOW", () => {
    const config = parseConfig({
      DATA_DIR: dataDir(),
      RATE_LIMIT_ACCOUNT_CREATE: "3/30s",
      RATE_LIMIT_AUTH_FAILURES: "7/2h",
    });
    expect(config.rateLimits.accountCreate).toEqual({ limit: 3, windowSeconds: 30 });
    expect(config.rateLimits.authFailures).toEqual({ limit: 7, windowSeconds: 7200 });
  });
});
