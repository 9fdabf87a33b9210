/**
 * The deposit watchers at scale: one watcher pass per coin with 100,000 watched addresses each, against the
 * real nodes the test suites run, on loopback:
 *
 *   ETH and USDT  anvil (chain id 1) with a test USDT: one EVM watcher, 200,000 addresses
 *   USDTTRC       the same anvil read as java-tron's Ethereum-style JSON-RPC (no TRON node exists here)
 *   LTC           litecoind (regtest)
 *   BTC           bcoin (regtest, Bitcoin Core's formats)
 *   XMR           monerod + a view-only monero-wallet-rpc, with 100,000 real subaddresses created in it
 *
 * The watched top-ups are written straight into the database (created an hour ago and cancelled half an
 * hour ago, so watched for the rest of the late-payment window; a burst of top-ups made or closed in the
 * last two minutes is read again by every pass, which is not what is measured here). Per coin, as after a
 * start: the loading passes, which read the watched set in time-bounded slices and scan nothing, until the
 * first pass that scans the chain; then BENCH_PASSES passes with a new block each and, in the second, a
 * payment to one watched address; the time of each pass and the heap after it (after a full GC). The
 * target: at most 1 s for every pass, loading ones included, and a heap that does not grow from pass to
 * pass. Run under the benchmark lock:
 *
 *   flock /tmp/vps-bench.lock npm run bench:watchers
 *   BENCH_DB=postgres BENCH_DATABASE_URL=postgres://… flock /tmp/vps-bench.lock npm run bench:watchers
 *   BENCH_WATCHED=100000 BENCH_PASSES=10 BENCH_XMR_SUBADDRESSES=100000 (defaults)
 *
 * Making the subaddresses takes the wallet most of the run (15 minutes on an idle machine, an hour on a busy
 * one). With BENCH_XMR_DIR set to a folder, the Monero chain, both wallets and the watch-only keys are kept
 * there, and the next run with that folder opens them instead (the other coins' nodes start afresh).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { bech32 } from "@scure/base";
import { createWalletClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startAnvil } from "@/lib/demo-chain/anvil";
import { fundNativeBalance, installTestToken, mintTestToken } from "@/lib/demo-chain/test-token";
import { testTokenAbi } from "@/lib/demo-chain/test-token-abi";
import { deriveDepositAddress, generateDemoWatchOnlyKeys, watchOnlyKeyEnv } from "@/lib/rails/addresses";
import { moneroPrimaryAddress } from "@/lib/rails/monero/address";
import { evmHexToTron } from "@/lib/rails/tron/address";
import { startFundedBcoin, startFundedLitecoind, startMonero } from "../e2e/support/coin-nodes";
import { openBenchDatabase } from "./bench-database";

const WATCHED = Number(process.env.BENCH_WATCHED ?? 100_000);
const PASSES = Number(process.env.BENCH_PASSES ?? 10);
const XMR_SUBADDRESSES = Number(process.env.BENCH_XMR_SUBADDRESSES ?? WATCHED);
const XMR_DIR = process.env.BENCH_XMR_DIR;
/** Runs before this one on the kept Monero chain, whose payments stay in its wallets' history. */
const runsFile = XMR_DIR ? path.join(XMR_DIR, "runs") : undefined;
const earlierRuns = runsFile && existsSync(runsFile) ? Number(readFileSync(runsFile, "utf8")) : 0;
/** The watched address that gets paid, somewhere in the middle of the set (one no earlier run paid). */
const PAID = Math.floor(WATCHED * 0.77) + earlierRuns;

if (typeof global.gc !== "function")
  throw new Error("run with node --expose-gc (npm run bench:watchers does)");
const gc = global.gc;
const target = await openBenchDatabase(
  "postgres://vps_test:vps_test@127.0.0.1:5432/vps_test_watchers",
  "vps-bench-watchers-",
);

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
/** A regtest P2WPKH address for a made-up 20-byte key hash: valid, and nobody's. */
const segwitAddress = (hrp: string, i: number) =>
  bech32.encode(hrp, [0, ...bech32.toWords(Buffer.from(i.toString(16).padStart(40, "0"), "hex"))]);
const evmAddress = (prefix: string, i: number) => `0x${prefix}${i.toString(16).padStart(38, "0")}`;

console.log(
  `Deposit watchers, ${WATCHED.toLocaleString("en")} watched addresses per coin, database ${target}, load ${loadAverage()}`,
);
const keptKeys = XMR_DIR ? path.join(XMR_DIR, "keys.json") : undefined;
const keys: ReturnType<typeof generateDemoWatchOnlyKeys> =
  keptKeys && existsSync(keptKeys) ? JSON.parse(readFileSync(keptKeys, "utf8")) : generateDemoWatchOnlyKeys();
if (keptKeys && !existsSync(keptKeys)) {
  mkdirSync(path.dirname(keptKeys), { recursive: true });
  writeFileSync(keptKeys, JSON.stringify(keys), { mode: 0o600 });
}
/** How many subaddresses the kept wallet already has (made by an earlier run). */
const madeFile = XMR_DIR ? path.join(XMR_DIR, "subaddresses") : undefined;
const alreadyMade = madeFile && existsSync(madeFile) ? Number(readFileSync(madeFile, "utf8")) : 0;
let started = performance.now();
const starting = [
  startAnvil({ chainId: 1 }),
  startFundedLitecoind(),
  startFundedBcoin(),
  startMonero({ address: moneroPrimaryAddress(keys), viewKey: keys.monero.viewKey }, XMR_DIR),
] as const;
const nodesStarted = await Promise.allSettled(starting);
const stopAll = () =>
  Promise.all(nodesStarted.map((node) => (node.status === "fulfilled" ? node.value.stop() : undefined)));
const [ethereum, litecoin, bitcoin, monero] = await Promise.all(starting).catch(async (error) => {
  await stopAll();
  throw error;
});
try {
  console.log(`nodes up in ${ms(performance.now() - started)}`);
  const usdt = await installTestToken(ethereum.rpcUrl, {
    name: "Tether USD",
    version: "1",
    symbol: "USDT",
    decimals: 6,
  });

  // 100,000 real subaddresses in the view-only wallet, made in batches as the watcher makes them.
  started = performance.now();
  for (let made = alreadyMade + 1; made <= XMR_SUBADDRESSES; made += 64) {
    await monero.service("create_address", {
      account_index: 0,
      count: Math.min(64, XMR_SUBADDRESSES - made + 1),
    });
  }
  const createMs = performance.now() - started;
  if (runsFile) writeFileSync(runsFile, String(earlierRuns + 1));
  if (madeFile && XMR_SUBADDRESSES > alreadyMade) {
    await monero.service("store");
    writeFileSync(madeFile, String(XMR_SUBADDRESSES));
  }
  const walletRss = readFileSync(`/proc/${monero.serviceWallet.pid}/status`, "utf8").match(
    /VmRSS:\s+(\d+)/,
  )?.[1];
  const fresh = Math.max(0, XMR_SUBADDRESSES - alreadyMade);
  console.log(
    `monero-wallet-rpc: ${XMR_SUBADDRESSES.toLocaleString("en")} subaddresses, ` +
      (fresh > 0
        ? `${fresh.toLocaleString("en")} created with create_address (64 a call) in ${(createMs / 1000).toFixed(0)} s ` +
          `(${(createMs / fresh).toFixed(1)} ms each)`
        : `made by an earlier run (kept in ${XMR_DIR})`) +
      `; wallet-rpc RSS ${walletRss ? mb(Number(walletRss) * 1024) : "?"}`,
  );

  Object.assign(process.env, {
    ...watchOnlyKeyEnv(keys),
    EVM_RPC_URL: ethereum.rpcUrl,
    EVM_USDT_ADDRESS: usdt,
    TRON_RPC_URL: ethereum.rpcUrl,
    TRON_SOLIDITY_RPC_URL: ethereum.rpcUrl,
    TRON_USDT_ADDRESS: evmHexToTron(usdt),
    LTC_RPC_URL: litecoin.rpcUrl,
    LTC_RPC_COOKIE_FILE: litecoin.cookieFile,
    LTC_CHAIN: "regtest",
    BTC_RPC_URL: bitcoin.rpcUrl,
    BTC_CHAIN: "regtest",
    XMR_WALLET_RPC_URL: monero.serviceWalletUrl,
  });
  // Loaded after the environment is set: the configuration is read once.
  const { sql } = await import("drizzle-orm");
  const { db } = await import("@/lib/db/client");
  const { depositRails } = await import("@/lib/rails/setup");
  const { pollUnderLease } = await import("@/lib/background/runner");
  const database = await db();

  started = performance.now();
  await database.execute(sql`INSERT INTO accounts (login_token_hash) VALUES ('bench-watchers')`);
  const seed = async (coin: string, network: string, addresses: (i: number) => string, indexed = false) => {
    for (let first = 0; first < WATCHED; first += 20_000) {
      const count = Math.min(20_000, WATCHED - first);
      const list = Array.from({ length: count }, (_, k) => addresses(first + k));
      await database.execute(sql`INSERT INTO topups (ref, account_id, status, method, coin, network,
          amount_cents, deposit_address, derivation_index, deposit_units, rate_usd, rate_source,
          confirmations_required, created_at, expires_at, closed_at)
        SELECT ${`bench-${coin}-`} || (${first} + ord - 1), 1, 'cancelled', 'deposit', ${coin}, ${network}, 2500,
          address, CASE WHEN ${indexed} THEN ${first} + ord - 1 END, 1, 1, 'demo-fixed', 1,
          now() - interval '1 hour', now() - interval '30 minutes', now() - interval '30 minutes'
        FROM unnest(${`{${list.join(",")}}`}::text[]) WITH ORDINALITY AS a(address, ord)`);
    }
  };
  await seed("ETH", "ethereum", (i) => evmAddress("e0", i));
  await seed("USDT", "ethereum", (i) => evmAddress("d0", i));
  await seed("USDTTRC", "tron", (i) => evmHexToTron(evmAddress("70", i)));
  await seed("LTC", "litecoin", (i) => segwitAddress("rltc", i));
  await seed("BTC", "bitcoin", (i) => segwitAddress("bcrt", i));
  // Monero top-up i pays subaddress (0, i + 1): the index is what the watcher matches.
  await seed("XMR", "monero", (i) => `bench-xmr-${i}`, true);
  // Table statistics, as the app's own upkeep (lib/db/maintenance.ts) or PostgreSQL's autovacuum keep them.
  await database.execute(sql`ANALYZE topups`);
  console.log(
    `${(6 * WATCHED).toLocaleString("en")} watched top-ups written in ${ms(performance.now() - started)}`,
  );

  const payer = privateKeyToAccount(generatePrivateKey());
  await fundNativeBalance(ethereum.rpcUrl, payer.address, parseEther("10"));
  await mintTestToken(ethereum.rpcUrl, usdt, payer.address, 1_000_000_000n);
  const wallet = createWalletClient({ account: payer, transport: http(ethereum.rpcUrl) });
  const payments: Record<string, () => Promise<unknown>> = {
    "evm:ethereum": async () => {
      await wallet.sendTransaction({ chain: null, to: evmAddress("e0", PAID) as `0x${string}`, value: 1n });
      await wallet.writeContract({
        chain: null,
        address: usdt,
        abi: testTokenAbi,
        functionName: "transfer",
        args: [evmAddress("d0", PAID) as `0x${string}`, 1_000_000n],
      });
    },
    "tron:usdt": () =>
      wallet.writeContract({
        chain: null,
        address: usdt,
        abi: testTokenAbi,
        functionName: "transfer",
        args: [evmAddress("70", PAID) as `0x${string}`, 1_000_000n],
      }),
    "utxo:litecoin": () => litecoin.rpc("sendtoaddress", [segwitAddress("rltc", PAID), 0.001], "payer"),
    "utxo:bitcoin": () => bitcoin.rpc("sendtoaddress", [segwitAddress("bcrt", PAID), 0.001], "payer"),
    "xmr:monero": async () => {
      await monero.payer("refresh");
      await monero.payer("transfer", {
        destinations: [{ amount: 1_000_000, address: deriveDepositAddress("monero", keys, PAID) }],
      });
    },
  };
  const nextBlock: Record<string, () => Promise<unknown>> = {
    "evm:ethereum": () => new Promise((resolve) => setTimeout(resolve, 1_100)), // anvil mines every second
    "tron:usdt": () => new Promise((resolve) => setTimeout(resolve, 1_100)),
    "utxo:litecoin": () => litecoin.rpc("generatetoaddress", [1, litecoin.miner], "payer"),
    "utxo:bitcoin": () => bitcoin.rpc("generatetoaddress", [1, bitcoin.miner]),
    "xmr:monero": () => monero.mine(1),
  };

  const watchers = depositRails().watchers.filter((watcher) => !watcher.demo);
  /** Whether the watcher has scanned its chain: its cursor has a head (the lease alone leaves it at -1). */
  const scanned = async (name: string) => {
    const cursor = (await database.execute(
      sql`SELECT head_block FROM chain_cursors WHERE network = ${name}`,
    )) as unknown as { rows: { head_block: number | string }[] };
    return Number(cursor.rows[0]?.head_block ?? -1) >= 0;
  };
  const rows: string[][] = [];
  let allMet = true;
  for (const watcher of watchers) {
    // As after a start: passes that load the watched set, until one scans the chain.
    const loading: number[] = [];
    let first = 0;
    for (;;) {
      gc();
      const begin = performance.now();
      await pollUnderLease(watcher, 600_000);
      const took = performance.now() - begin;
      if (await scanned(watcher.name)) {
        first = took;
        break;
      }
      loading.push(took);
      if (loading.length > 200) throw new Error(`${watcher.name} never finished loading its watched set`);
    }
    const times: number[] = [];
    const heaps: number[] = [];
    for (let pass = 1; pass <= PASSES; pass++) {
      if (pass === 2) await payments[watcher.name]?.();
      await nextBlock[watcher.name]?.();
      gc();
      const begin = performance.now();
      await pollUnderLease(watcher, 600_000);
      times.push(performance.now() - begin);
      gc();
      heaps.push(process.memoryUsage().heapUsed);
    }
    const found = (await database.execute(sql`SELECT count(*)::int AS n FROM deposit_payments p
      JOIN topups t ON t.id = p.topup_id WHERE t.ref LIKE ${`bench-%-${PAID}`}
        AND p.network = ANY(${`{${watcher.networks.join(",")}}`}::text[])`)) as unknown as {
      rows: { n: number }[];
    };
    const worst = Math.max(...loading, first, ...times);
    const met = worst <= 1_000;
    allMet &&= met;
    rows.push([
      watcher.name,
      String(loading.length),
      loading.length > 0 ? ms(Math.max(...loading)) : "-",
      ms(loading.reduce((sum, t) => sum + t, 0) + first),
      ms(first),
      ms(median(times)),
      ms(Math.max(...times)),
      mb(heaps[0] ?? 0),
      mb(heaps[heaps.length - 1] ?? 0),
      mb(Math.max(...heaps) - Math.min(...heaps)),
      String(found.rows[0]?.n ?? 0),
      met ? "met" : "MISSED",
    ]);
  }
  const header = [
    "watcher",
    "loading passes",
    "loading max",
    "to first scan",
    "first scan",
    "pass median",
    "pass max",
    "heap after 1st",
    "heap after last",
    "heap spread",
    "paid found",
    "all <= 1 s",
  ];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i] ?? 0)).join("  ");
  console.log(
    `\nPer watcher: the passes that load the watched set, the first that scans the chain (the sum of their ` +
      `times: "to first scan"), then ${PASSES} with a new block each (a payment before the 2nd); load ${loadAverage()}`,
  );
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log(`rss ${mb(process.memoryUsage().rss)}; target ${allMet ? "met" : "MISSED"} on every watcher`);
} finally {
  await stopAll();
}
process.exit(0);
