/**
 * The node suite: the app against real coin nodes in regtest (litecoind; bcoin with Bitcoin Core's
 * regtest formats; monerod with a payer wallet and
 * the service's view-only wallet), on the database named by
 * API_TEST_DB like the API suite. Each node pushes its blocks to the app as an operator sets it up
 * (litecoind's -blocknotify, bcoin's socket, monerod's ZMQ publisher), while the app still polls every
 * 500 ms. Ends with the same ledger check.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { generateDemoWatchOnlyKeys, watchOnlyKeyEnv } from "../../lib/rails/addresses";
import { moneroPrimaryAddress } from "../../lib/rails/monero/address";
import { freePort, type RunningApp, startApp } from "../support/app-server";
import { type BlockNotifyFixture, blockNotifyControls, startBlockNotify } from "../support/block-notify";
import {
  type CoreNode,
  type MoneroNodes,
  startFundedBcoin,
  startFundedLitecoind,
  startMonero,
} from "../support/coin-nodes";
import { checkLedger } from "../support/ledger-check";
import { type RpcProxy, startRpcProxy } from "../support/rpc-proxy";
import type { UtxoScenarioNode } from "./utxo-scenarios";

let app: RunningApp | undefined;
let litecoin: CoreNode | undefined;
let bitcoin: CoreNode | undefined;
let monero: MoneroNodes | undefined;
let walletProxy: RpcProxy | undefined;
let databaseUrl: string | undefined;
let blockNotify: BlockNotifyFixture | undefined;

export async function setup(project: TestProject) {
  const env: Record<string, string> = {
    ENABLE_TEST_CLOCK: "1",
    WATCHER_INTERVAL_MS: "500",
    // Polls as often with a healthy push as without: the scenarios here read the mempool between blocks.
    WATCHER_PUSH_INTERVAL_MS: "500",
    // The Monero test hands out 200 subaddresses from one account, past the per-account top-up limit.
    RATE_LIMIT_DEPOSIT_TOPUPS: "1000/1h",
  };
  if (process.env.API_TEST_DB === "postgres") {
    databaseUrl = process.env.TEST_DATABASE_URL;
    if (!databaseUrl) throw new Error("API_TEST_DB=postgres needs TEST_DATABASE_URL");
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(
      "DROP SCHEMA IF EXISTS public CASCADE; DROP SCHEMA IF EXISTS drizzle CASCADE; CREATE SCHEMA public;",
    );
    await client.end();
    env.DATABASE_URL = databaseUrl;
  }
  // Watch-only keys made here, so the service's view-only Monero wallet can be built from the same keys.
  const keys = generateDemoWatchOnlyKeys();
  const moneroAddress = moneroPrimaryAddress(keys);
  const moneroStarting = startMonero({ address: moneroAddress, viewKey: keys.monero.viewKey });
  moneroStarting.catch(() => undefined);
  blockNotify = startBlockNotify("litecoin");
  const fundedLitecoin = await startFundedLitecoind(blockNotify.command);
  litecoin = fundedLitecoin;
  const miner = fundedLitecoin.miner;
  const fundedBitcoin = await startFundedBcoin();
  bitcoin = fundedBitcoin;
  const btcMiner = fundedBitcoin.miner;
  monero = await moneroStarting;
  // The app reaches the service's wallet through a recording proxy, so a test can see what it asks of it.
  walletProxy = await startRpcProxy(`${monero.serviceWalletUrl}/json_rpc`);
  const notifyPort = await freePort();
  Object.assign(env, {
    ...watchOnlyKeyEnv(keys),
    XMR_WALLET_RPC_URL: walletProxy.url,
    XMR_ZMQ_URL: monero.zmqUrl,
    LTC_PUSH: "notify",
    DEPOSIT_NOTIFY_LISTEN: `127.0.0.1:${notifyPort}`,
    DEPOSIT_NOTIFY_SECRET: blockNotify.secret,
    BTC_PUSH: "bcoin",
    LTC_RPC_URL: litecoin.rpcUrl,
    LTC_RPC_COOKIE_FILE: litecoin.cookieFile,
    LTC_CHAIN: "regtest",
    BTC_RPC_URL: bitcoin.rpcUrl,
    BTC_CHAIN: "regtest",
    // Regtest has no public explorer: a configured link shows the template at work.
    EXPLORER_TX_URLS: "LTC=https://explorer.example/ltc/tx/{tx},BTC=https://explorer.example/btc/tx/{tx}",
  });
  app = await startApp(env);
  blockNotifyControls(blockNotify.dir).add(`http://127.0.0.1:${notifyPort}`);
  project.provide("baseUrl", app.url);
  project.provide("blockNotify", { dir: blockNotify.dir, secret: blockNotify.secret });
  project.provide("appEnv", { ...env, DATA_DIR: app.dataDir });
  project.provide("testDatabaseUrl", databaseUrl ?? "");
  project.provide("nodes", {
    litecoin: { rpcUrl: litecoin.rpcUrl, cookieFile: litecoin.cookieFile, miner },
    bitcoin: { rpcUrl: bitcoin.rpcUrl, walletRpcUrl: bitcoin.walletRpcUrl, miner: btcMiner },
  });
  project.provide("monero", {
    daemonUrl: monero.daemonUrl,
    zmqUrl: monero.zmqUrl,
    payerUrl: monero.payerUrl,
    payerAddress: monero.payerAddress,
    serviceWalletUrl: monero.serviceWalletUrl,
    serviceWallet: monero.serviceWallet,
    walletProxyControl: walletProxy.controlUrl,
  });
}

export async function teardown() {
  await app?.stop();
  let report: Awaited<ReturnType<typeof checkLedger>> | undefined;
  if (app && databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    report = await checkLedger(async (sql) => (await client.query(sql)).rows);
    await client.end();
  } else if (app) {
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create({ dataDir: path.join(app.dataDir, "pglite") });
    report = await checkLedger(async (sql) => (await db.query<Record<string, unknown>>(sql)).rows);
    await db.close();
  }
  await litecoin?.stop();
  await bitcoin?.stop();
  await walletProxy?.stop();
  await monero?.stop();
  blockNotify?.remove();
  if (!report) return;
  console.log(
    `ledger check: ${report.accounts} accounts, ${report.entries} entries, ${report.problems.length} problems`,
  );
  if (process.env.LEDGER_CHECK_FILE) {
    const ok = report.problems.length === 0;
    writeFileSync(process.env.LEDGER_CHECK_FILE, JSON.stringify({ passed: ok ? 1 : 0, failed: ok ? 0 : 1 }));
  }
  if (report.problems.length > 0) throw new Error(`ledger check failed:\n${report.problems.join("\n")}`);
}

declare module "vitest" {
  export interface ProvidedContext {
    nodes: { litecoin: UtxoScenarioNode; bitcoin: UtxoScenarioNode };
    /** litecoind's -blocknotify (e2e/support/block-notify.ts): its folder, and the secret apps must share. */
    blockNotify: { dir: string; secret: string };
    monero: {
      daemonUrl: string;
      zmqUrl: string;
      payerUrl: string;
      payerAddress: string;
      serviceWalletUrl: string;
      serviceWallet: { pid: number; args: string[] };
      /** The control of the recording proxy between the app and the service's wallet (rpc-proxy.ts). */
      walletProxyControl: string;
    };
  }
}
