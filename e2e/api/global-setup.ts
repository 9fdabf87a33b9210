/**
 * Starts one app for the API suite, on the database named by API_TEST_DB:
 * `pglite` (default, a fresh embedded database) or `postgres` (TEST_DATABASE_URL, wiped first).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startDnsServer, type TestDnsServer } from "@/lib/testing/dns-server";
import { type RunningApp, startApp } from "../support/app-server";
import { checkLedger, type LedgerReport } from "../support/ledger-check";
import { type PowerDns, startPowerDns } from "../support/powerdns";
import { resetPostgres } from "../support/reset-postgres";
import { startTestChains, type TestChains } from "../support/test-chains";

/** Limits low enough for the suite to reach them, per test-chosen client address. */
export const TEST_LIMITS = {
  accountCreate: 5,
  authFailures: 8,
  loginFailures: 6,
  totpFailures: 3,
  totpAccountFailures: 8,
  recoveryFailures: 3,
  sessionsPerAccount: 4,
  x402Attempts: 25,
  /** Servers whose consoles one account may hold at once, and short console lifetimes to see them end. */
  consoles: 2,
  consoleIdleSeconds: 6,
  consoleMaxSeconds: 12,
  /** Deposit top-ups an account may create per hour, whatever became of them. */
  depositTopups: 12,
  /** Above the 5 requests the suite sends to one server at once, which all count until refused. */
  hostOperations: 8,
  /** Test sends and redeliveries of notifications per account (the two-instance test sends a hundred). */
  notificationSends: 150,
  /** What one operator's adjustments may move in 24 hours before a second admin must approve (USD). */
  adjustmentDailyCapUsd: 100,
  /** Operator API requests and pages per operator: few enough for a test to spend them. */
  operatorRequests: 120,
  /** New or changed endpoint URLs per account (one account adds ten endpoints). */
  webhookUrls: 12,
  /** Console tickets per account and per server (a test opens a dozen on one server). */
  consoleTickets: 20,
  consoleTicketsServer: 12,
  /** console.opened is announced once per server in this many minutes. */
  consoleOpenedEventMinutes: 10,
  /** Console input: a burst, then bytes a second; a client that stays behind the output this long is cut. */
  consoleInputBurst: 64 * 1024,
  consoleInputPerSecond: 16 * 1024,
  consoleBehindSeconds: 5,
};

/**
 * The name server the app resolves endpoints' names with (NOTIFY_DNS_SERVERS): `*.hooks.test` is loopback
 * (where the suite's receivers listen), `*.internal.test` a private address, and names under `silent.test`
 * are never answered.
 */
export const TEST_ZONES = {
  "*.hooks.test": ["127.0.0.1"],
  "*.internal.test": ["10.0.3.7"],
  "public.hooks-far.test": ["93.184.216.34"],
};

let app: RunningApp | undefined;
let chains: TestChains | undefined;
let dns: TestDnsServer | undefined;
let powerDns: PowerDns | undefined;
let databaseUrl: string | undefined;

export async function setup(project: TestProject) {
  const target = process.env.API_TEST_DB ?? "pglite";
  const env: Record<string, string> = {
    RATE_LIMIT_ACCOUNT_CREATE: `${TEST_LIMITS.accountCreate}/1h`,
    RATE_LIMIT_AUTH_FAILURES: `${TEST_LIMITS.authFailures}/10m`,
    PROVISION_DELAY_SECONDS: "1",
    RATE_LIMIT_LOGIN_FAILURES: `${TEST_LIMITS.loginFailures}/10m`,
    RATE_LIMIT_TOTP_FAILURES: `${TEST_LIMITS.totpFailures}/10m`,
    RATE_LIMIT_TOTP_ACCOUNT_FAILURES: `${TEST_LIMITS.totpAccountFailures}/10m`,
    RATE_LIMIT_RECOVERY_FAILURES: `${TEST_LIMITS.recoveryFailures}/10m`,
    MAX_SESSIONS_PER_ACCOUNT: String(TEST_LIMITS.sessionsPerAccount),
    RATE_LIMIT_X402_ATTEMPTS: `${TEST_LIMITS.x402Attempts}/10m`,
    CONSOLE_MAX_PER_ACCOUNT: String(TEST_LIMITS.consoles),
    CONSOLE_IDLE_TIMEOUT_SECONDS: String(TEST_LIMITS.consoleIdleSeconds),
    CONSOLE_MAX_SECONDS: String(TEST_LIMITS.consoleMaxSeconds),
    RATE_LIMIT_DEPOSIT_TOPUPS: `${TEST_LIMITS.depositTopups}/1h`,
    RATE_LIMIT_HOST_OPERATIONS: `${TEST_LIMITS.hostOperations}/10m`,
    // Usage graphs fill within seconds (server-metrics.test.ts).
    METRICS_INTERVAL_SECONDS: "2",
    // Notifications to receivers the tests run on loopback, retried within a fraction of a second.
    NOTIFY_TEST_ALLOW_LOOPBACK: "1",
    NOTIFY_TEST_RETRY_MS: "300",
    RATE_LIMIT_NOTIFICATION_SENDS: `${TEST_LIMITS.notificationSends}/10m`,
    OPERATOR_ADJUSTMENT_DAILY_CAP_USD: String(TEST_LIMITS.adjustmentDailyCapUsd),
    RATE_LIMIT_OPERATOR_REQUESTS: `${TEST_LIMITS.operatorRequests}/10m`,
    RATE_LIMIT_WEBHOOK_URLS: `${TEST_LIMITS.webhookUrls}/10m`,
    RATE_LIMIT_CONSOLE_TICKETS: `${TEST_LIMITS.consoleTickets}/10m`,
    RATE_LIMIT_CONSOLE_TICKETS_SERVER: `${TEST_LIMITS.consoleTicketsServer}/1m`,
    CONSOLE_OPENED_EVENT_MINUTES: String(TEST_LIMITS.consoleOpenedEventMinutes),
    CONSOLE_INPUT_BYTES_PER_SECOND: String(TEST_LIMITS.consoleInputPerSecond),
    CONSOLE_BEHIND_SECONDS: String(TEST_LIMITS.consoleBehindSeconds),
    // The status page's figures follow the tests within a second (status.test.ts).
    STATUS_REFRESH_SECONDS: "1",
    // A host per location, as a deployment has them (the simulated provisioner never calls them): room for
    // everything, but in Kuala Lumpur only 3 GiB of memory, so a resize meets a host's limit there
    // (resize.test.ts); nothing else orders in that location.
    HYPERVISORS: JSON.stringify(
      ["bg", "ch", "fr", "is", "my", "nl", "ro", "se"].map((location) => ({
        name: `${location}-1`,
        location,
        uri: "qemu:///system",
        ...(location === "my"
          ? { memory_mb: 3072, vcpus: 4, disk_gb: 200 }
          : { memory_mb: 16_777_216, vcpus: 65_536, disk_gb: 1_048_576 }),
      })),
    ),
  };
  if (target === "postgres") {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error("API_TEST_DB=postgres needs TEST_DATABASE_URL");
    await resetPostgres(url);
    env.DATABASE_URL = url;
    databaseUrl = url;
  }
  chains = await startTestChains();
  dns = await startDnsServer(TEST_ZONES);
  env.NOTIFY_DNS_SERVERS = dns.address;
  // Reverse DNS into a PowerDNS of the suite's own, names checked against it (network.test.ts).
  powerDns = await startPowerDns();
  const rdnsEnv = {
    PDNS_API_URL: powerDns.apiUrl,
    PDNS_API_KEY: powerDns.apiKey,
    RDNS_DEFAULT_DOMAIN: "rdns.vps.test",
    RDNS_RESOLVERS: powerDns.dns,
    RDNS_LOOKUP_TIMEOUT_MS: "1000",
    PDNS_API_TIMEOUT_MS: "1000",
  };
  // The settlement node by name, as deployments often give it: its lookups are the process's getaddrinfo.
  const appEnv = {
    ...env,
    ...chains.appEnv,
    ...rdnsEnv,
    X402_RPC_URL: chains.appEnv.X402_RPC_URL?.replace("127.0.0.1", "localhost") ?? "",
  };
  app = await startApp(appEnv);
  project.provide("appEnv", appEnv);
  project.provide("appDataDir", app.dataDir);
  project.provide("appOutputFile", app.outputFile);
  project.provide("baseUrl", app.url);
  project.provide("dbTarget", target);
  project.provide("powerDns", {
    apiUrl: powerDns.apiUrl,
    apiKey: powerDns.apiKey,
    dns: powerDns.dns,
    pid: powerDns.pid,
  });
  project.provide("testDatabaseUrl", env.DATABASE_URL ?? "");
  project.provide("chains", {
    baseRpc: chains.base.rpcUrl,
    baseProxyControl: chains.baseProxy.controlUrl,
    usdc: chains.usdc,
    payTo: chains.payTo,
    relayer: chains.relayer,
    ethereumRpc: chains.ethereum.rpcUrl,
    ethereumWatcherRpc: chains.ethereumProxy.url,
    ethereumWs: chains.ethereum.rpcUrl.replace(/^http/, "ws"),
    ethereumWsProxyControl: chains.ethereumWsProxy.controlUrl,
    usdt: chains.usdt,
  });
}

/** After the suite: the ledger must balance, whatever the tests did. */
async function ledgerCheck(running: RunningApp, databaseUrl: string | undefined) {
  let report: LedgerReport;
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      report = await checkLedger(async (sql) => (await client.query(sql)).rows);
    } finally {
      await client.end();
    }
  } else {
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create({ dataDir: path.join(running.dataDir, "pglite") });
    try {
      report = await checkLedger(async (sql) => (await db.query<Record<string, unknown>>(sql)).rows);
    } finally {
      await db.close();
    }
  }
  console.log(
    `ledger check: ${report.accounts} accounts, ${report.entries} ledger entries, ${report.problems.length} problems`,
  );
  const resultFile = process.env.LEDGER_CHECK_FILE;
  if (resultFile) {
    const ok = report.problems.length === 0;
    writeFileSync(resultFile, JSON.stringify({ passed: ok ? 1 : 0, failed: ok ? 0 : 1 }));
  }
  if (report.problems.length > 0) throw new Error(`ledger check failed:\n${report.problems.join("\n")}`);
}

export async function teardown() {
  await app?.stop();
  await chains?.stop();
  await dns?.close();
  await powerDns?.stop();
  if (app) await ledgerCheck(app, databaseUrl);
}

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    dbTarget: string;
    /** The suite's PowerDNS: its API, and where it answers DNS (a `pid` the rDNS test pauses). */
    powerDns: { apiUrl: string; apiKey: string; dns: string; pid: number };
    testDatabaseUrl: string;
    /** The environment the app under test runs with, to start a second instance beside it. */
    appEnv: Record<string, string>;
    /** The app's DATA_DIR: a second instance given it shares the demo secrets (the encryption key). */
    appDataDir: string;
    /** A file holding everything the app wrote to its standard output and error so far. */
    appOutputFile: string;
    chains: {
      baseRpc: string;
      baseProxyControl: string;
      usdc: `0x${string}`;
      payTo: `0x${string}`;
      relayer: `0x${string}`;
      ethereumRpc: string;
      /** The Ethereum chain as the app's watcher reads it: behind geth's `eth_getLogs` limits. */
      ethereumWatcherRpc: string;
      /** The Ethereum chain's WebSocket, and the control of the proxy the app's push reads it through. */
      ethereumWs: string;
      ethereumWsProxyControl: string;
      usdt: `0x${string}`;
    };
  }
}
