import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_NAMES, PRODUCTION_REQUIRED, parseSettings } from "./settings";

const EXAMPLE = path.join(process.cwd(), "deploy/production.env.example");

/** NAME=value lines of the example, comments and blank lines left out. */
function exampleEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readFileSync(EXAMPLE, "utf8").split("\n")) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1]) entries.set(match[1], match[2] ?? "");
  }
  return entries;
}

/** Stand-ins for the example's <placeholders>, valid in form only. */
const FILLED: Record<string, string> = {
  SESSION_SECRET: "s".repeat(40),
  ENCRYPTION_KEY: "ab".repeat(32),
  DATABASE_URL: "postgres://vps:pw@127.0.0.1:5432/vps",
  X402_RPC_URL: "https://base.example/rpc",
  X402_PAY_TO: "0x2BCCcf425AC35bc15d9A9466e4f3ce0941fC2738",
  X402_RELAYER_PRIVATE_KEY: `0x${"11".repeat(32)}`,
};

describe("deploy/production.env.example", () => {
  it("sets every variable production mode requires, and the database several instances need", () => {
    const entries = exampleEntries();
    for (const name of [...PRODUCTION_REQUIRED, "APP_MODE", "DATABASE_URL", "TRUST_PROXY_HOPS"]) {
      expect(entries.get(name), name).toBeTruthy();
    }
    expect(entries.get("APP_MODE")).toBe("production");
    expect(entries.get("TRUST_PROXY_HOPS")).toBe("1");
  });

  it("names only variables the configuration reads", () => {
    const unknown = [...exampleEntries().keys()].filter((name) => !ENV_NAMES.includes(name));
    expect(unknown).toEqual([]);
  });

  it("is a valid production configuration once its placeholders are filled in", () => {
    const env: Record<string, string> = { DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-deploy-")) };
    for (const [name, value] of exampleEntries()) {
      if (name === "DATA_DIR") continue;
      env[name] = value.includes("<") ? (FILLED[name] ?? `unfilled placeholder for ${name}`) : value;
    }
    const { core } = parseSettings(env);
    expect(core.mode).toBe("production");
    expect(core.databaseUrl).toBe(FILLED.DATABASE_URL);
    expect(core.trustProxyHops).toBe(1);
  });
});
