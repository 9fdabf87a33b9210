import "server-only";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { deriveSecrets } from "@/lib/util/subkeys";
import { PRODUCTION_TRIGGERS } from "./mode";
import { ConfigError, DEFAULT_DATA_DIR, envSlice, httpUrl, optionalText } from "./slice";

/**
 * The core of the configuration: the mode, where data lives, the database, the two secrets and the origins.
 * Each domain reads its own block through a slice of its own (lib/servers/config.ts, lib/rails/<family>/
 * config.ts, …); lib/boot/settings.ts checks every slice at start-up.
 */
const secret = z.string().min(32, "must be at least 32 characters");

export const CORE_SETTINGS = envSlice({
  name: "core",
  shape: {
    APP_MODE: z.enum(["demo", "production"]).optional(),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
    DATABASE_URL: optionalText.pipe(
      z
        .url({ protocol: /^postgres(ql)?$/, message: "must be a postgres:// or postgresql:// URL" })
        .optional(),
    ),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    SESSION_SECRET: optionalText.pipe(secret.optional()),
    ENCRYPTION_KEY: optionalText.pipe(
      z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)")
        .optional(),
    ),
    API_BASE_URL: optionalText.pipe(z.url().optional()),
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(1),
    MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
    PUBLIC_BASE_URL: httpUrl,
    ENABLE_TEST_CLOCK: z.enum(["0", "1"]).default("0"),
  },
  requiredInProduction: () => PRODUCTION_TRIGGERS,
  derive(values, { mode, demoValue }) {
    if (mode === "production" && values.ENABLE_TEST_CLOCK === "1") {
      throw new ConfigError(["ENABLE_TEST_CLOCK: only allowed in demo mode"]);
    }
    // In demo mode the secrets are generated once into DATA_DIR, so sessions and sealed values survive restarts.
    const sessionSecret =
      values.SESSION_SECRET ??
      (mode === "demo" ? demoValue("sessionSecret", () => randomBytes(32).toString("base64url")) : undefined);
    const encryptionKey =
      values.ENCRYPTION_KEY ??
      (mode === "demo" ? demoValue("encryptionKey", () => randomBytes(32).toString("hex")) : undefined);
    if (!sessionSecret || !encryptionKey) throw new ConfigError(["secrets could not be resolved"]);
    return {
      mode,
      port: values.PORT,
      dataDir: path.resolve(values.DATA_DIR),
      databaseUrl: values.DATABASE_URL,
      databasePoolSize: values.DATABASE_POOL_SIZE,
      ...deriveSecrets(sessionSecret, Buffer.from(encryptionKey, "hex")),
      encryptionKey: Buffer.from(encryptionKey, "hex"),
      apiBaseUrl: values.API_BASE_URL,
      trustProxyHops: values.TRUST_PROXY_HOPS,
      maxBodyBytes: values.MAX_BODY_BYTES,
      publicBaseUrl: values.PUBLIC_BASE_URL,
      testClock: values.ENABLE_TEST_CLOCK === "1",
    };
  },
});

export type AppConfig = {
  mode: "demo" | "production";
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** iron-session's passwords by id (derived from SESSION_SECRET; see lib/util/subkeys.ts). */
  sessionPasswords: Record<string, string>;
  /** Signs the client address the dashboard passes to the API (derived from SESSION_SECRET). */
  clientAddressKey: Buffer;
  /** Binds an operator session's CSRF token to its cookie (derived from SESSION_SECRET). */
  operatorCsrfKey: Buffer;
  /** ENCRYPTION_KEY as given: the AES-256-GCM key of sealed secrets (root passwords, TOTP secrets), only that. */
  encryptionKey: Buffer;
  /** Keys the secrets kept in stored request fingerprints (derived from ENCRYPTION_KEY). */
  requestFingerprintKey: Buffer;
  apiBaseUrl: string | undefined;
  trustProxyHops: number;
  maxBodyBytes: number;
  publicBaseUrl: string | undefined;
  /** Demo mode only: the business clock can be moved forward over HTTP (for tests). */
  testClock: boolean;
};

/** The process-wide core configuration, read from process.env on first use. */
export function config(): AppConfig {
  return CORE_SETTINGS.read();
}
