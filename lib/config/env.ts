import "server-only";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { z } from "zod";
import { LOCATIONS } from "@/lib/catalog/catalog";
import {
  generateDemoWatchOnlyKeys,
  validateWatchOnlyKeys,
  type WatchOnlyKeys,
} from "@/lib/rails/deposits/addresses";
import { isDepositCoin, USDT_ERC20_MAINNET, USDT_TRC20 } from "@/lib/rails/registry";
import { tronToEvmHex } from "@/lib/rails/tron/address";
import { deriveSecrets } from "@/lib/util/subkeys";
import { PRODUCTION_TRIGGERS } from "./mode";

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

const evmAddress = optionalText.pipe(
  z
    .string()
    .refine((value) => isAddress(value, { strict: false }), "must be a 0x-prefixed 20-byte address")
    .optional(),
);
const privateKey = optionalText.pipe(
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key")
    .optional(),
);
const isTronAddress = (value: string) => {
  try {
    tronToEvmHex(value);
    return true;
  } catch {
    return false;
  }
};
const httpUrl = optionalText.pipe(
  z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).optional(),
);

/** A JSON object of header name -> value sent to the x402 facilitator (its API key, for instance). */
const facilitatorHeaders = optionalText.transform((value, context) => {
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  const headers = z.record(z.string().regex(/^[A-Za-z0-9-]+$/), z.string()).safeParse(parsed);
  if (!headers.success) {
    context.addIssue({
      code: "custom",
      message: 'must be a JSON object of header names to values, e.g. {"Authorization":"Bearer ..."}',
    });
    return z.NEVER;
  }
  return headers.data;
});

/** `ETH:3,USDT:3` -> per-coin confirmation counts that override the defaults. */
const confirmationOverrides = z
  .string()
  .default("")
  .transform((value, context) => {
    const result: Record<string, number> = {};
    for (const part of value
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean)) {
      const match = /^([A-Z]+):(\d{1,3})$/.exec(part);
      if (!match?.[1] || !match[2] || Number(match[2]) < 1) {
        context.addIssue({
          code: "custom",
          message: `expected COIN:COUNT pairs such as ETH:12, got "${part}"`,
        });
        return z.NEVER;
      }
      result[match[1]] = Number(match[2]);
    }
    return result;
  });

/** `BTC=https://mempool.space/tx/{tx},XMR=…`: per-coin explorer links, `{tx}` replaced by the transaction id. */
const explorerUrls = z
  .string()
  .default("")
  .transform((value, context) => {
    const result: Record<string, string> = {};
    for (const part of value
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean)) {
      const match = /^([A-Z]+)=(https:\/\/\S+)$/.exec(part);
      if (!match?.[1] || !match[2]?.includes("{tx}")) {
        context.addIssue({
          code: "custom",
          message: `expected COIN=https://…{tx}… pairs, got "${part}"`,
        });
        return z.NEVER;
      }
      result[match[1]] = match[2];
    }
    return result;
  });

/** `72,24`: how many hours before a server's expiry its owner is warned, at most 5 lead times, latest last. */
const expiryWarningHours = z
  .string()
  .default("72,24")
  .transform((value, context) => {
    const hours = value
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)
      .map(Number);
    if (hours.length > 5 || hours.some((h) => !Number.isInteger(h) || h < 1 || h > 720)) {
      context.addIssue({
        code: "custom",
        message: `expected up to 5 whole numbers of hours from 1 to 720 separated by commas, got "${value}"`,
      });
      return z.NEVER;
    }
    return [...new Set(hours)].sort((a, b) => b - a);
  });

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
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(1),
  RATE_LIMIT_ACCOUNT_CREATE: rateLimitSpec.prefault("10/1h"),
  RATE_LIMIT_AUTH_FAILURES: rateLimitSpec.prefault("20/10m"),
  RATE_LIMIT_LOGIN_FAILURES: rateLimitSpec.prefault("10/15m"),
  RATE_LIMIT_TOTP_FAILURES: rateLimitSpec.prefault("5/10m"),
  RATE_LIMIT_TOTP_ACCOUNT_FAILURES: rateLimitSpec.prefault("30/24h"),
  RATE_LIMIT_RECOVERY_FAILURES: rateLimitSpec.prefault("5/1h"),
  RATE_LIMIT_WALLET_RPC: rateLimitSpec.prefault("120/1m"),
  MAX_SESSIONS_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(20),
  RATE_LIMIT_X402_ATTEMPTS: rateLimitSpec.prefault("30/10m"),
  RATE_LIMIT_DEPOSIT_TOPUPS: rateLimitSpec.prefault("100/168h"),
  RATE_LIMIT_HOST_OPERATIONS: rateLimitSpec.prefault("30/10m"),
  RATE_LIMIT_OPERATOR_SIGNIN: rateLimitSpec.prefault("5/15m"),
  RATE_LIMIT_OPERATOR_REQUESTS: rateLimitSpec.prefault("600/10m"),
  OPERATOR_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  OPERATOR_SESSION_HOURS: z.coerce.number().int().min(1).max(168).default(12),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  PUBLIC_BASE_URL: httpUrl,
  X402_NETWORK: z.enum(["base", "base-sepolia"]).default("base"),
  X402_RPC_URL: httpUrl,
  X402_USDC_ADDRESS: evmAddress,
  X402_USDC_NAME: optionalText,
  X402_USDC_VERSION: optionalText,
  X402_PAY_TO: evmAddress,
  X402_RELAYER_PRIVATE_KEY: privateKey,
  X402_MAX_TIMEOUT_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  X402_FACILITATOR_URL: httpUrl,
  X402_FACILITATOR_HEADERS: facilitatorHeaders,
  EVM_RPC_URL: httpUrl,
  EVM_CHAIN_ID: z.coerce.number().int().min(1).default(1),
  EVM_USDT_ADDRESS: evmAddress,
  EVM_TRACE_INTERNAL_TRANSFERS: z.enum(["0", "1"]).default("0"),
  BTC_RPC_URL: httpUrl,
  BTC_RPC_COOKIE_FILE: optionalText,
  BTC_CHAIN: z.enum(["main", "regtest"]).default("main"),
  LTC_RPC_URL: httpUrl,
  LTC_RPC_COOKIE_FILE: optionalText,
  LTC_CHAIN: z.enum(["main", "regtest"]).default("main"),
  XMR_WALLET_RPC_URL: httpUrl,
  TRON_RPC_URL: httpUrl,
  TRON_SOLIDITY_RPC_URL: httpUrl,
  // The base58check checksum is checked here, so a mistyped contract stops the app at start with this
  // message instead of failing every read of the deposit rails later.
  TRON_USDT_ADDRESS: optionalText.pipe(
    z
      .string()
      .regex(/^(T[1-9A-HJ-NP-Za-km-z]{33}|0x[0-9a-fA-F]{40})$/, "must be a T… or 0x… contract address")
      .refine(
        (value) => value.startsWith("0x") || isTronAddress(value),
        "not a TRON address: its base58check checksum does not match (mistyped?)",
      )
      .optional(),
  ),
  EXPLORER_TX_URLS: explorerUrls,
  DEPOSIT_XPUB_BTC: optionalText,
  DEPOSIT_XPUB_LTC: optionalText,
  DEPOSIT_XPUB_ETH: optionalText,
  DEPOSIT_XPUB_TRX: optionalText,
  DEPOSIT_XMR_VIEW_KEY: optionalText,
  DEPOSIT_XMR_SPEND_PUBLIC_KEY: optionalText,
  DEPOSIT_CONFIRMATIONS: confirmationOverrides,
  TOPUP_EXPIRY_MINUTES: z.coerce.number().int().min(5).max(1440).default(30),
  LATE_PAYMENT_WINDOW_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(168),
  WATCHER_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  RATE_SOURCE: z.enum(["demo-fixed", "coingecko"]).optional(),
  RATE_SOURCE_URL: httpUrl,
  RATE_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  DEMO_CHAIN_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  ENABLE_TEST_CLOCK: z.enum(["0", "1"]).default("0"),
  PROVISION_DELAY_SECONDS: z.coerce.number().int().min(0).max(3600).default(15),
  SERVER_GRACE_DAYS: z.coerce.number().int().min(0).max(90).default(7),
  SNAPSHOTS_PER_SERVER: z.coerce.number().int().min(1).max(50).default(3),
  EXPIRED_SERVER_RETENTION_DAYS: z.coerce.number().int().min(0).max(365).default(14),
  PROVISIONER: z.enum(["simulated", "libvirt"]).default("simulated"),
  ALLOW_DEMO_LIBVIRT: z.enum(["0", "1"]).default("0"),
  HYPERVISORS: optionalText,
  GUEST_IMAGES_DIR: z.string().min(1).default("/var/lib/vps/images"),
  SERVER_DISKS_DIR: z.string().min(1).default("/var/lib/vps/servers"),
  SERVER_MEMORY_CAP_MB: z.coerce.number().int().min(128).optional(),
  SERVER_DISK_CAP_GB: z.coerce.number().int().min(1).optional(),
  SSH_FORWARD_PORT_BASE: z.coerce.number().int().min(1024).max(60000).default(22000),
  SSH_FORWARD_PORT_COUNT: z.coerce.number().int().min(1).max(64512).default(1000),
  SERVER_BOOT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  SERVER_STOP_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
  CONSOLE_TICKET_TTL_SECONDS: z.coerce.number().int().min(5).max(300).default(30),
  CONSOLE_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(100).default(3),
  CONSOLE_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(86_400).default(900),
  CONSOLE_MAX_SECONDS: z.coerce.number().int().min(10).max(86_400).default(14_400),
  LIBVIRT_DOMAIN_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,15}$/, "lower-case letters, digits and hyphens, starting with a letter")
    .default("vps-"),
  METRICS_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  TRAFFIC_ALLOWANCE_CAP_MB: z.coerce.number().int().min(1).optional(),
  NOTIFY_EXPIRY_WARNING_HOURS: expiryWarningHours,
  NOTIFY_DISABLE_AFTER_DAYS: z.coerce.number().int().min(1).max(30).default(5),
  RATE_LIMIT_NOTIFICATION_SENDS: rateLimitSpec.prefault("30/10m"),
  NOTIFY_TEST_ALLOW_LOOPBACK: z.enum(["0", "1"]).default("0"),
  NOTIFY_TEST_RETRY_MS: z.coerce.number().int().min(10).max(60_000).optional(),
});

/** The settings' values when unset: the documentation quotes these, so it cannot drift from the code. */
export const envDefaults = () => envSchema.parse({});

/** Every variable the configuration reads. */
export const ENV_NAMES = Object.keys(envSchema.shape);

/** One hypervisor host of HYPERVISORS. */
const hypervisorSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lower-case letters, digits and hyphens"),
  location: z.string().min(1),
  uri: z
    .string()
    .regex(
      /^qemu(\+(ssh|libssh|libssh2))?:\/\/[^\s]*\/system(\?[^\s]*)?$/,
      "a libvirt URI such as qemu:///system or qemu+ssh://user@host/system",
    ),
  memory_mb: z.number().int().min(128),
  vcpus: z.number().int().min(1),
  disk_gb: z.number().int().min(1),
  /** Bridged networking: the host's bridge and its public IPv4 pool; absent, user-mode with a forwarded port. */
  bridge: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,15}$/, "a Linux interface name")
    .optional(),
  ipv4_pool: z
    .string()
    .regex(
      /^(\d{1,3}(\.\d{1,3}){3})-(\d{1,3}(\.\d{1,3}){3})$/,
      "first-last IPv4 address, e.g. 203.0.113.10-203.0.113.40",
    )
    .optional(),
  ipv4_prefix: z.number().int().min(8).max(32).optional(),
  ipv4_gateway: z.ipv4().optional(),
  nameservers: z.array(z.ipv4()).max(3).optional(),
});
const hypervisorsSchema = z.array(hypervisorSchema).min(1);

export type HypervisorHost = {
  name: string;
  location: string;
  uri: string;
  memoryMb: number;
  vcpus: number;
  diskGb: number;
  /** Bridged hosts: guests get the pool's addresses on the bridge; others get a forwarded SSH port. */
  network?: HostNetwork;
};

export type HostNetwork = {
  bridge: string;
  /** The pool's first and last address, inclusive. */
  pool: { first: string; last: string };
  prefix: number;
  gateway: string;
  nameservers: string[];
};

const ipv4Number = (address: string) =>
  address.split(".").reduce((value, part) => value * 256 + Number(part), 0);

function hostNetwork(host: z.infer<typeof hypervisorSchema>): HostNetwork | string | undefined {
  const fields = [host.bridge, host.ipv4_pool, host.ipv4_prefix, host.ipv4_gateway];
  if (fields.every((field) => field === undefined) && host.nameservers === undefined) return undefined;
  if (fields.some((field) => field === undefined)) {
    return `HYPERVISORS: ${host.name} needs bridge, ipv4_pool, ipv4_prefix and ipv4_gateway together`;
  }
  const [first = "", last = ""] = (host.ipv4_pool as string).split("-");
  const valid = (address: string) => address.split(".").every((part) => Number(part) <= 255);
  if (!valid(first) || !valid(last) || ipv4Number(first) > ipv4Number(last)) {
    return `HYPERVISORS: ${host.name} has an invalid ipv4_pool`;
  }
  return {
    bridge: host.bridge as string,
    pool: { first, last },
    prefix: host.ipv4_prefix as number,
    gateway: host.ipv4_gateway as string,
    nameservers: host.nameservers ?? [],
  };
}

const LOOPBACK_HOSTS = new Set(["", "localhost", "[::1]"]);

/**
 * What makes a host unsafe to use: a URI that turns the SSH host-key check off (libvirt's `no_verify` for
 * every SSH transport, `known_hosts_verify` for libssh), or no bridge on a host that is not this machine (its
 * guests' forwarded ports would be on ITS loopback, and the readiness probe would check this machine's).
 */
function hostProblems(host: z.infer<typeof hypervisorSchema>, network: HostNetwork | undefined): string[] {
  const problems: string[] = [];
  let uri: URL;
  try {
    uri = new URL(host.uri);
  } catch {
    return [`HYPERVISORS: ${host.name} has an invalid uri`];
  }
  for (const [name, value] of uri.searchParams) {
    const param = name.toLowerCase();
    if (
      (param === "no_verify" && value !== "0") ||
      (param === "known_hosts_verify" && value.toLowerCase() !== "normal")
    ) {
      problems.push(
        `HYPERVISORS: ${host.name} turns SSH host-key checking off (${name}=${value}); pin the host's key in known_hosts instead`,
      );
    }
  }
  const loopback = LOOPBACK_HOSTS.has(uri.hostname) || /^127(\.\d{1,3}){3}$/.test(uri.hostname);
  if (!network && !loopback) {
    problems.push(
      `HYPERVISORS: ${host.name} needs a bridge (with ipv4_pool, ipv4_prefix, ipv4_gateway): without one its guests' SSH is forwarded from the loopback of ${uri.hostname}, which only works for a host on this machine`,
    );
  }
  return problems;
}

function parseHypervisors(text: string | undefined): HypervisorHost[] | string[] {
  if (text === undefined) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return ["HYPERVISORS: must be a JSON array of {name, location, uri, memory_mb, vcpus, disk_gb}"];
  }
  const parsed = hypervisorsSchema.safeParse(raw);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => `HYPERVISORS.${issue.path.join(".")}: ${issue.message}`);
  }
  const names = parsed.data.map((host) => host.name);
  if (new Set(names).size !== names.length) return ["HYPERVISORS: host names must be unique"];
  const networks = parsed.data.map(hostNetwork);
  const problems = networks.filter((network): network is string => typeof network === "string");
  if (problems.length > 0) return problems;
  const unsafe = parsed.data.flatMap((host, index) =>
    hostProblems(host, networks[index] as HostNetwork | undefined),
  );
  if (unsafe.length > 0) return unsafe;
  return parsed.data.map((host, index) => ({
    name: host.name,
    location: host.location,
    uri: host.uri,
    memoryMb: host.memory_mb,
    vcpus: host.vcpus,
    diskGb: host.disk_gb,
    ...(networks[index] ? { network: networks[index] as HostNetwork } : {}),
  }));
}

/** Variables a production deployment must set; in demo mode they are generated or simulated. */
export const PRODUCTION_REQUIRED = [
  ...PRODUCTION_TRIGGERS,
  "X402_RPC_URL",
  "X402_PAY_TO",
  "X402_RELAYER_PRIVATE_KEY",
] as const;

/** The official USDC contracts and their EIP-712 domains (name differs between mainnet and Sepolia). */
const USDC_BY_NETWORK = {
  base: {
    chainId: 8453,
    address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    name: "USD Coin",
    version: "2",
  },
  "base-sepolia": {
    chainId: 84532,
    address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    name: "USDC",
    version: "2",
  },
} as const;

export type X402Config = {
  network: "base" | "base-sepolia";
  chainId: number;
  /** Unset in demo mode until the local chain has started (see lib/demo-chain/demo-chain). */
  rpcUrl: string | undefined;
  usdc: { address: `0x${string}`; name: string; version: string };
  payTo: `0x${string}` | undefined;
  relayerPrivateKey: `0x${string}` | undefined;
  maxTimeoutSeconds: number;
  /** When set, verification and settlement are delegated to this x402 facilitator instead of our relayer. */
  facilitator: { url: string; headers: Record<string, string> } | undefined;
};

export type UtxoNodeConfig = {
  rpcUrl: string | undefined;
  cookieFile: string | undefined;
  chain: "main" | "regtest";
};

export type DepositConfig = {
  keys: WatchOnlyKeys;
  /** True when the keys were generated for the demo rather than configured. */
  demoKeys: boolean;
  confirmationOverrides: Record<string, number>;
  expiryMinutes: number;
  latePaymentWindowHours: number;
  watcherIntervalMs: number;
  evm: {
    rpcUrl: string | undefined;
    chainId: number;
    usdtAddress: `0x${string}`;
    /** Read call traces so ether sent by contracts (internal calls) is credited; the node must serve them. */
    traceInternalTransfers: boolean;
  };
  /** Bitcoin Core-style nodes; `chain` picks the address format (`bc1`/`ltc1` or regtest `bcrt1`/`rltc1`). */
  utxo: Record<"bitcoin" | "litecoin", UtxoNodeConfig>;
  /** A view-only monero-wallet-rpc made from DEPOSIT_XMR_VIEW_KEY and DEPOSIT_XMR_SPEND_PUBLIC_KEY. */
  moneroWalletRpcUrl: string | undefined;
  /** java-tron's Ethereum-style JSON-RPC (full node, and the solidity node for irreversible blocks). */
  tron: { rpcUrl: string | undefined; solidityRpcUrl: string | undefined; usdtContract: string };
  /** Per coin: a public explorer's transaction page, `{tx}` standing for the transaction id. */
  explorerTxUrls: Record<string, string>;
  /** `cacheSeconds`: how long one snapshot of market prices is reused (0: asked afresh every time). */
  rateSource: { kind: "demo-fixed" | "coingecko"; url: string; cacheSeconds: number };
};

export type RateLimitSpec = { limit: number; windowSeconds: number };

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
  rateLimits: {
    accountCreate: RateLimitSpec;
    authFailures: RateLimitSpec;
    loginFailures: RateLimitSpec;
    totpFailures: RateLimitSpec;
    totpAccountFailures: RateLimitSpec;
    recoveryFailures: RateLimitSpec;
    walletRpc: RateLimitSpec;
    x402Attempts: RateLimitSpec;
    /** Deposit top-ups an account may create per window, whatever became of them (each is an address watched). */
    depositTopups: RateLimitSpec;
    hostOperations: RateLimitSpec;
    /** Test sends and redeliveries of notifications, per account: each is a request to the customer's URL. */
    notificationSends: RateLimitSpec;
    /** Failed operator sign-ins, per client address and per operator. */
    operatorSignIn: RateLimitSpec;
    /** Operator API requests, per operator. */
    operatorRequests: RateLimitSpec;
  };
  /** Live dashboard sessions an account may hold; a sign-in past it revokes the oldest. */
  maxSessionsPerAccount: number;
  maxBodyBytes: number;
  publicBaseUrl: string | undefined;
  x402: X402Config;
  deposits: DepositConfig;
  /** Demo-only values generated into DATA_DIR; undefined in production. */
  demo: DemoValues | undefined;
  demoChainPort: number;
  /** Demo mode only: the business clock can be moved forward over HTTP (for tests). */
  testClock: boolean;
  servers: ServerSettings;
  console: ConsoleSettings;
  notifications: NotificationSettings;
  operator: OperatorSettings;
};

/** Webhooks and push topics (lib/notifications). */
export type NotificationSettings = {
  /** Lead times of the expiry warnings, in hours, longest first. */
  expiryWarningHours: number[];
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterDays: number;
  /** Demo mode only, for tests: endpoints on loopback (127.0.0.0/8, ::1) are allowed. */
  allowLoopback: boolean;
  /** Demo mode only, for tests: every retry waits this long instead of the schedule. */
  testRetryMs: number | undefined;
};

/** The operator's console: how long a signed-in operator session lasts. */
export type OperatorSettings = {
  /** A session with no request for this long ends. */
  sessionIdleMinutes: number;
  /** A session ends this long after sign-in, however busy. */
  sessionHours: number;
};

/** The serial console in the browser: its tickets and how long a session may last. */
export type ConsoleSettings = {
  ticketTtlSeconds: number;
  /** Servers whose console one account may hold open (or hold an unused ticket for) at once. */
  maxPerAccount: number;
  /** A session with no input from its client for this long is closed. */
  idleTimeoutSeconds: number;
  /** A session is closed this long after it opened, whatever happens in it. */
  maxSeconds: number;
};

export type ServerSettings = {
  provisionDelaySeconds: number;
  graceDays: number;
  /** Snapshots a server may keep (taken on request or before a reinstall); they cost nothing. */
  snapshotsPerServer: number;
  /** How long a server terminated because its period lapsed keeps its last disk (0: removed at once). */
  retentionDays: number;
  provisioner: "simulated" | "libvirt";
  /** Real machines in demo mode, allowed by ALLOW_DEMO_LIBVIRT=1 for test machines: /health shows it. */
  demoLibvirt: boolean;
  /** Empty: no placement (the simulated provisioner's default); otherwise every order is placed on one. */
  hypervisors: HypervisorHost[];
  guestImagesDir: string;
  serverDisksDir: string;
  memoryCapMb: number | undefined;
  diskCapGb: number | undefined;
  sshForwardPortBase: number;
  /** How many ports from the base may be forwarded: one per server on a host without a bridge. */
  sshForwardPortCount: number;
  bootTimeoutSeconds: number;
  stopTimeoutSeconds: number;
  domainPrefix: string;
  /** How often each host's machines are read for usage (one `virsh domstats` per host). */
  metricsIntervalSeconds: number;
  /** Caps every plan's monthly traffic allowance (small test setups); undefined: the plan's. */
  trafficCapMb: number | undefined;
};

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type DemoSecrets = {
  sessionSecret: string;
  encryptionKey: string;
  /** Watch-only keys for the demo's deposit addresses: public keys (and a Monero view key) only. */
  depositKeys?: Required<WatchOnlyKeys>;
  /** Keys of accounts that exist only on the demo's local chain. */
  chainRelayerKey?: string;
  chainPayToKey?: string;
  chainWalletKey?: string;
};

export type DemoValues = {
  chainRelayerKey: `0x${string}`;
  chainPayTo: `0x${string}`;
  chainWalletKey: `0x${string}`;
};

const randomKey = () => `0x${randomBytes(32).toString("hex")}`;

/**
 * Demo secrets are generated once and kept in DATA_DIR so sessions, stored passwords, deposit addresses
 * and the local chain's accounts survive restarts. Values added by newer versions are filled in.
 */
function loadOrCreateDemoSecrets(dataDir: string): Required<DemoSecrets> {
  const file = path.join(dataDir, "demo-secrets.json");
  let stored: DemoSecrets | undefined;
  if (existsSync(file)) {
    stored = JSON.parse(readFileSync(file, "utf8")) as DemoSecrets;
    if (!(stored.sessionSecret?.length >= 32 && /^[0-9a-f]{64}$/.test(stored.encryptionKey ?? ""))) {
      stored = undefined;
    }
  }
  const complete: Required<DemoSecrets> = {
    sessionSecret: stored?.sessionSecret ?? randomBytes(32).toString("base64url"),
    encryptionKey: stored?.encryptionKey ?? randomBytes(32).toString("hex"),
    depositKeys: stored?.depositKeys ?? generateDemoWatchOnlyKeys(),
    chainRelayerKey: stored?.chainRelayerKey ?? randomKey(),
    chainPayToKey: stored?.chainPayToKey ?? randomKey(),
    chainWalletKey: stored?.chainWalletKey ?? randomKey(),
  };
  if (JSON.stringify(stored) !== JSON.stringify(complete)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(complete, null, 2), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return complete;
}

/**
 * Demo mode gives balance away (`POST /demo/topups/{ref}/pay`) and may let anyone move the clock, so real
 * machines are refused there unless ALLOW_DEMO_LIBVIRT=1 says this is a test machine only its owner can
 * reach. The switch means nothing in production and is refused there. Returns whether it is in effect.
 */
function checkDemoLibvirt(mode: AppConfig["mode"], provisioner: "simulated" | "libvirt", allowed: boolean) {
  if (mode === "production" && allowed) {
    throw new ConfigError(["ALLOW_DEMO_LIBVIRT: only for demo mode; unset it in production"]);
  }
  if (mode === "demo" && provisioner === "libvirt" && !allowed) {
    throw new ConfigError([
      "PROVISIONER: libvirt builds real machines, and demo mode hands out balance for simulated payments: " +
        "run in production mode (SESSION_SECRET, ENCRYPTION_KEY and the x402 settings), or set " +
        "ALLOW_DEMO_LIBVIRT=1 on a test machine that only you can reach",
    ]);
  }
  return mode === "demo" && provisioner === "libvirt";
}

/** Parses an environment into the app's configuration; throws ConfigError listing every bad value. */
export function parseConfig(env: Record<string, string | undefined>): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const values = parsed.data;
  const anyProductionValue = PRODUCTION_TRIGGERS.some((name) => values[name] !== undefined);
  const mode = values.APP_MODE ?? (anyProductionValue ? "production" : "demo");
  const dataDir = path.resolve(values.DATA_DIR);

  if (mode === "production") {
    // With a facilitator, it settles and pays the gas: no relayer key of ours is needed.
    const missing = PRODUCTION_REQUIRED.filter(
      (name) =>
        values[name] === undefined &&
        !(name === "X402_RELAYER_PRIVATE_KEY" && values.X402_FACILITATOR_URL !== undefined),
    );
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

  const configuredKeys: WatchOnlyKeys = {
    bitcoin: values.DEPOSIT_XPUB_BTC,
    litecoin: values.DEPOSIT_XPUB_LTC,
    ethereum: values.DEPOSIT_XPUB_ETH,
    tron: values.DEPOSIT_XPUB_TRX,
    monero:
      values.DEPOSIT_XMR_VIEW_KEY || values.DEPOSIT_XMR_SPEND_PUBLIC_KEY
        ? {
            viewKey: values.DEPOSIT_XMR_VIEW_KEY ?? "",
            spendPublicKey: values.DEPOSIT_XMR_SPEND_PUBLIC_KEY ?? "",
          }
        : undefined,
  };
  const anyKeyConfigured = Object.values(configuredKeys).some((key) => key !== undefined);
  const keyProblems = validateWatchOnlyKeys(configuredKeys);
  if (keyProblems.length > 0) throw new ConfigError(keyProblems);
  const unknownCoins = Object.keys(values.DEPOSIT_CONFIRMATIONS).filter((coin) => !isDepositCoin(coin));
  if (unknownCoins.length > 0) {
    throw new ConfigError([`DEPOSIT_CONFIRMATIONS: unknown coin ${unknownCoins.join(", ")}`]);
  }
  if (mode === "production" && values.ENABLE_TEST_CLOCK === "1") {
    throw new ConfigError(["ENABLE_TEST_CLOCK: only allowed in demo mode"]);
  }
  // Test-only switches that would weaken what a production deployment promises: refused outright there.
  if (mode === "production" && values.NOTIFY_TEST_ALLOW_LOOPBACK === "1") {
    throw new ConfigError(["NOTIFY_TEST_ALLOW_LOOPBACK: only allowed in demo mode (tests)"]);
  }
  if (mode === "production" && values.NOTIFY_TEST_RETRY_MS !== undefined) {
    throw new ConfigError(["NOTIFY_TEST_RETRY_MS: only allowed in demo mode (tests)"]);
  }
  const hypervisors = parseHypervisors(values.HYPERVISORS);
  if (hypervisors.some((host) => typeof host === "string")) throw new ConfigError(hypervisors as string[]);
  const hosts = hypervisors as HypervisorHost[];
  const unknownLocations = hosts.filter((host) => !LOCATIONS.some((l) => l.id === host.location));
  if (unknownLocations.length > 0) {
    throw new ConfigError(
      unknownLocations.map((host) => `HYPERVISORS: ${host.name} has unknown location ${host.location}`),
    );
  }
  if (values.PROVISIONER === "libvirt" && hosts.length === 0) {
    throw new ConfigError(["HYPERVISORS: required when PROVISIONER=libvirt"]);
  }
  const demoLibvirt = checkDemoLibvirt(mode, values.PROVISIONER, values.ALLOW_DEMO_LIBVIRT === "1");
  const lastForwardedPort = values.SSH_FORWARD_PORT_BASE + values.SSH_FORWARD_PORT_COUNT - 1;
  if (lastForwardedPort > 65535) {
    throw new ConfigError([
      `SSH_FORWARD_PORT_COUNT: the range SSH_FORWARD_PORT_BASE..${lastForwardedPort} passes port 65535`,
    ]);
  }
  const usdc = USDC_BY_NETWORK[values.X402_NETWORK];
  const demoValues: DemoValues | undefined = demo && {
    chainRelayerKey: demo.chainRelayerKey as `0x${string}`,
    chainPayTo: privateKeyToAddress(demo.chainPayToKey as `0x${string}`),
    chainWalletKey: demo.chainWalletKey as `0x${string}`,
  };

  return {
    mode,
    port: values.PORT,
    dataDir,
    databaseUrl: values.DATABASE_URL,
    databasePoolSize: values.DATABASE_POOL_SIZE,
    ...deriveSecrets(sessionSecret, Buffer.from(encryptionKey, "hex")),
    encryptionKey: Buffer.from(encryptionKey, "hex"),
    apiBaseUrl: values.API_BASE_URL,
    trustProxyHops: values.TRUST_PROXY_HOPS,
    rateLimits: {
      accountCreate: values.RATE_LIMIT_ACCOUNT_CREATE,
      authFailures: values.RATE_LIMIT_AUTH_FAILURES,
      loginFailures: values.RATE_LIMIT_LOGIN_FAILURES,
      totpFailures: values.RATE_LIMIT_TOTP_FAILURES,
      totpAccountFailures: values.RATE_LIMIT_TOTP_ACCOUNT_FAILURES,
      recoveryFailures: values.RATE_LIMIT_RECOVERY_FAILURES,
      walletRpc: values.RATE_LIMIT_WALLET_RPC,
      x402Attempts: values.RATE_LIMIT_X402_ATTEMPTS,
      depositTopups: values.RATE_LIMIT_DEPOSIT_TOPUPS,
      hostOperations: values.RATE_LIMIT_HOST_OPERATIONS,
      notificationSends: values.RATE_LIMIT_NOTIFICATION_SENDS,
      operatorSignIn: values.RATE_LIMIT_OPERATOR_SIGNIN,
      operatorRequests: values.RATE_LIMIT_OPERATOR_REQUESTS,
    },
    maxSessionsPerAccount: values.MAX_SESSIONS_PER_ACCOUNT,
    maxBodyBytes: values.MAX_BODY_BYTES,
    publicBaseUrl: values.PUBLIC_BASE_URL,
    x402: {
      network: values.X402_NETWORK,
      chainId: usdc.chainId,
      rpcUrl: values.X402_RPC_URL,
      usdc: {
        address: (values.X402_USDC_ADDRESS ?? usdc.address) as `0x${string}`,
        name: values.X402_USDC_NAME ?? usdc.name,
        version: values.X402_USDC_VERSION ?? usdc.version,
      },
      payTo: (values.X402_PAY_TO as `0x${string}` | undefined) ?? demoValues?.chainPayTo,
      relayerPrivateKey:
        (values.X402_RELAYER_PRIVATE_KEY as `0x${string}` | undefined) ?? demoValues?.chainRelayerKey,
      maxTimeoutSeconds: values.X402_MAX_TIMEOUT_SECONDS,
      facilitator: values.X402_FACILITATOR_URL
        ? { url: values.X402_FACILITATOR_URL, headers: values.X402_FACILITATOR_HEADERS }
        : undefined,
    },
    deposits: {
      keys: anyKeyConfigured || !demo ? configuredKeys : demo.depositKeys,
      demoKeys: !anyKeyConfigured && demo !== undefined,
      confirmationOverrides: values.DEPOSIT_CONFIRMATIONS,
      expiryMinutes: values.TOPUP_EXPIRY_MINUTES,
      latePaymentWindowHours: values.LATE_PAYMENT_WINDOW_HOURS,
      watcherIntervalMs: values.WATCHER_INTERVAL_MS,
      evm: {
        rpcUrl: values.EVM_RPC_URL,
        chainId: values.EVM_CHAIN_ID,
        usdtAddress: (values.EVM_USDT_ADDRESS ?? USDT_ERC20_MAINNET) as `0x${string}`,
        traceInternalTransfers: values.EVM_TRACE_INTERNAL_TRANSFERS === "1",
      },
      utxo: {
        bitcoin: {
          rpcUrl: values.BTC_RPC_URL,
          cookieFile: values.BTC_RPC_COOKIE_FILE,
          chain: values.BTC_CHAIN,
        },
        litecoin: {
          rpcUrl: values.LTC_RPC_URL,
          cookieFile: values.LTC_RPC_COOKIE_FILE,
          chain: values.LTC_CHAIN,
        },
      },
      moneroWalletRpcUrl: values.XMR_WALLET_RPC_URL,
      tron: {
        rpcUrl: values.TRON_RPC_URL,
        solidityRpcUrl: values.TRON_SOLIDITY_RPC_URL,
        usdtContract: values.TRON_USDT_ADDRESS ?? USDT_TRC20,
      },
      explorerTxUrls: {
        // Public mainnet explorers; a coin watched on regtest has none unless configured.
        ...(values.BTC_CHAIN === "main" ? { BTC: "https://mempool.space/tx/{tx}" } : {}),
        ...(values.LTC_CHAIN === "main" ? { LTC: "https://litecoinspace.org/tx/{tx}" } : {}),
        ...(values.XMR_WALLET_RPC_URL ? { XMR: "https://xmrchain.net/tx/{tx}" } : {}),
        ETH: "https://etherscan.io/tx/{tx}",
        USDT: "https://etherscan.io/tx/{tx}",
        USDTTRC: "https://tronscan.org/#/transaction/{tx}",
        ...values.EXPLORER_TX_URLS,
      },
      rateSource: {
        kind: values.RATE_SOURCE ?? (mode === "demo" ? "demo-fixed" : "coingecko"),
        url: values.RATE_SOURCE_URL ?? "https://api.coingecko.com/api/v3",
        cacheSeconds: values.RATE_CACHE_SECONDS,
      },
    },
    demo: demoValues,
    demoChainPort: values.DEMO_CHAIN_PORT,
    testClock: values.ENABLE_TEST_CLOCK === "1",
    servers: {
      provisionDelaySeconds: values.PROVISION_DELAY_SECONDS,
      graceDays: values.SERVER_GRACE_DAYS,
      snapshotsPerServer: values.SNAPSHOTS_PER_SERVER,
      retentionDays: values.EXPIRED_SERVER_RETENTION_DAYS,
      provisioner: values.PROVISIONER,
      demoLibvirt,
      hypervisors: hosts,
      guestImagesDir: path.resolve(values.GUEST_IMAGES_DIR),
      serverDisksDir: path.resolve(values.SERVER_DISKS_DIR),
      memoryCapMb: values.SERVER_MEMORY_CAP_MB,
      diskCapGb: values.SERVER_DISK_CAP_GB,
      sshForwardPortBase: values.SSH_FORWARD_PORT_BASE,
      sshForwardPortCount: values.SSH_FORWARD_PORT_COUNT,
      bootTimeoutSeconds: values.SERVER_BOOT_TIMEOUT_SECONDS,
      stopTimeoutSeconds: values.SERVER_STOP_TIMEOUT_SECONDS,
      domainPrefix: values.LIBVIRT_DOMAIN_PREFIX,
      metricsIntervalSeconds: values.METRICS_INTERVAL_SECONDS,
      trafficCapMb: values.TRAFFIC_ALLOWANCE_CAP_MB,
    },
    console: {
      ticketTtlSeconds: values.CONSOLE_TICKET_TTL_SECONDS,
      maxPerAccount: values.CONSOLE_MAX_PER_ACCOUNT,
      idleTimeoutSeconds: values.CONSOLE_IDLE_TIMEOUT_SECONDS,
      maxSeconds: values.CONSOLE_MAX_SECONDS,
    },
    notifications: {
      expiryWarningHours: values.NOTIFY_EXPIRY_WARNING_HOURS,
      disableAfterDays: values.NOTIFY_DISABLE_AFTER_DAYS,
      allowLoopback: values.NOTIFY_TEST_ALLOW_LOOPBACK === "1",
      testRetryMs: values.NOTIFY_TEST_RETRY_MS,
    },
    operator: {
      sessionIdleMinutes: values.OPERATOR_SESSION_IDLE_MINUTES,
      sessionHours: values.OPERATOR_SESSION_HOURS,
    },
  };
}

let cached: AppConfig | undefined;

/** The process-wide configuration, read from process.env on first use. */
export function config(): AppConfig {
  cached ??= parseConfig(process.env);
  return cached;
}
