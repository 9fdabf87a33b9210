import "server-only";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/** A rate limit written as `count/window`, e.g. `10/1h` or `20/10m`. */
const rateLimitSpec = z
  .string()
  .regex(/^\d+\/\d+[smh]$/, "expected COUNT/WINDOW such as 10/1h, 20/10m or 5/30s")
  .transform((value) => {
    const [countText, windowText] = value.split("/") as [string, string];
    const unit = windowText.slice(-1);
    const amount = Number(windowText.slice(0, -1));
    const seconds = amount * (unit === "h" ? 3600 : unit === "m" ? 60 : 1);
    return { limit: Number(countText), windowSeconds: seconds };
  })
  .refine((spec) => spec.limit > 0 && spec.windowSeconds > 0, "count and window must be positive");

const secret = z.string().min(32, "must be at least 32 characters");
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === "" ? undefined : value));

const envSchema = z.object({
  APP_MODE: z.enum(["demo", "production"]).optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: optionalText.pipe(
    z.url({ protocol: /^postgres(ql)?$/, message: "must be a postgres:// or postgresql:// URL" }).optional(),
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
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  RATE_LIMIT_ACCOUNT_CREATE: rateLimitSpec.prefault("10/1h"),
  RATE_LIMIT_AUTH_FAILURES: rateLimitSpec.prefault("20/10m"),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
});

/** Variables a production deployment must set; in demo mode they are generated or simulated. */
const PRODUCTION_REQUIRED = ["SESSION_SECRET", "ENCRYPTION_KEY"] as const;

export type RateLimitSpec = { limit: number; windowSeconds: number };

export type AppConfig = {
  mode: "demo" | "production";
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  sessionSecret: string;
  encryptionKey: Buffer;
  apiBaseUrl: string | undefined;
  trustProxyHops: number;
  rateLimits: { accountCreate: RateLimitSpec; authFailures: RateLimitSpec };
  maxBodyBytes: number;
};

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type DemoSecrets = { sessionSecret: string; encryptionKey: string };

/** Demo secrets are generated once and kept in DATA_DIR so sessions and stored passwords survive restarts. */
function loadOrCreateDemoSecrets(dataDir: string): DemoSecrets {
  const file = path.join(dataDir, "demo-secrets.json");
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, "utf8")) as DemoSecrets;
    if (stored.sessionSecret?.length >= 32 && /^[0-9a-f]{64}$/.test(stored.encryptionKey ?? ""))
      return stored;
  }
  mkdirSync(dataDir, { recursive: true });
  const created: DemoSecrets = {
    sessionSecret: randomBytes(32).toString("base64url"),
    encryptionKey: randomBytes(32).toString("hex"),
  };
  writeFileSync(file, JSON.stringify(created, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return created;
}

/** Parses an environment into the app's configuration; throws ConfigError listing every bad value. */
export function parseConfig(env: Record<string, string | undefined>): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const values = parsed.data;
  const anyProductionValue = PRODUCTION_REQUIRED.some((name) => values[name] !== undefined);
  const mode = values.APP_MODE ?? (anyProductionValue ? "production" : "demo");
  const dataDir = path.resolve(values.DATA_DIR);

  if (mode === "production") {
    const missing = PRODUCTION_REQUIRED.filter((name) => values[name] === undefined);
    if (missing.length > 0) {
      throw new ConfigError(
        missing.map((name) => `${name}: required in production mode (APP_MODE=production)`),
      );
    }
  }
  const demo = mode === "demo" ? loadOrCreateDemoSecrets(dataDir) : undefined;
  const sessionSecret = values.SESSION_SECRET ?? demo?.sessionSecret;
  const encryptionKey = values.ENCRYPTION_KEY ?? demo?.encryptionKey;
  if (!sessionSecret || !encryptionKey) throw new ConfigError(["secrets could not be resolved"]);

  return {
    mode,
    port: values.PORT,
    dataDir,
    databaseUrl: values.DATABASE_URL,
    databasePoolSize: values.DATABASE_POOL_SIZE,
    sessionSecret,
    encryptionKey: Buffer.from(encryptionKey, "hex"),
    apiBaseUrl: values.API_BASE_URL,
    trustProxyHops: values.TRUST_PROXY_HOPS,
    rateLimits: {
      accountCreate: values.RATE_LIMIT_ACCOUNT_CREATE,
      authFailures: values.RATE_LIMIT_AUTH_FAILURES,
    },
    maxBodyBytes: values.MAX_BODY_BYTES,
  };
}

let cached: AppConfig | undefined;

/** The process-wide configuration, read from process.env on first use. */
export function config(): AppConfig {
  cached ??= parseConfig(process.env);
  return cached;
}
