/**
 * Deposit watcher benchmark against real regtest nodes (run `npm run build` first):
 *
 * 1. Scan cost: a litecoind block full of transactions, matched against 10,000 watched P2WPKH addresses
 *    (what the UTXO watcher does per block): the raw block (`getblock <hash> 0`) parsed by
 *    lib/rails/utxo/raw-block, beside the verbose JSON (`getblock <hash> 2`) it replaced.
 * 2. Block-to-credit latency per coin at the default WATCHER_INTERVAL_MS (5000): from the block that gives
 *    a payment its last required confirmation to the top-up reading `completed`. LTC and BTC (bcoin)
 *    always; XMR with `--xmr`
 *    (monerod mines its setup blocks first, about 10 s on an idle machine).
 *
 * Usage: npm run bench:deposits [-- --samples 5] [-- --xmr] [-- --no-scan]
 */
import { performance } from "node:perf_hooks";
import { deriveDepositAddress, generateDemoWatchOnlyKeys, watchOnlyKeyEnv } from "@/lib/rails/addresses";
import { moneroPrimaryAddress } from "@/lib/rails/monero/address";
import { p2wpkhScriptHex } from "@/lib/rails/utxo/address";
import { blockOutputs } from "@/lib/rails/utxo/raw-block";
import { BitcoinRpc } from "@/lib/rails/utxo/rpc";
import { UtxoWatcher } from "@/lib/rails/utxo/watcher";
import { startApp } from "../e2e/support/app-server";
import { startFundedBcoin, startFundedLitecoind, startMonero } from "../e2e/support/coin-nodes";

const args = process.argv.slice(2);
const samples = Number(args[args.indexOf("--samples") + 1]) || 5;
const withMonero = args.includes("--xmr");
const WATCHED = 10_000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function scanCost(keys: ReturnType<typeof generateDemoWatchOnlyKeys>) {
  const node = await startFundedLitecoind();
  const { miner } = node;
  try {
    let started = performance.now();
    const addresses = Array.from({ length: WATCHED }, (_, i) =>
      deriveDepositAddress("litecoin", keys, i, "regtest"),
    );
    const deriveMs = performance.now() - started;
    started = performance.now();
    const watched = new Map(
      addresses.map((address, i) => [p2wpkhScriptHex("litecoin", address, "regtest"), i]),
    );
    const scriptsMs = performance.now() - started;

    // A block of 200 transactions with 10 outputs each, one output in 20 paying a watched address (the
    // others pay 10 addresses of the payer's, so one transaction never pays an address twice).
    const others: string[] = [];
    for (let i = 0; i < 10; i++)
      others.push(await node.rpc<string>("getnewaddress", ["", "bech32"], "payer"));
    for (let t = 0; t < 200; t++) {
      const outputs: Record<string, number> = {};
      for (let o = 0; o < 10; o++) {
        const ours = (t * 10 + o) % 20 === 0;
        const address = ours ? (addresses[(t * 10 + o) % WATCHED] as string) : (others[o] as string);
        outputs[address] = 0.001;
      }
      await node.rpc("sendmany", ["", outputs], "payer");
    }
    const [hash] = await node.rpc<string[]>("generatetoaddress", [1, miner], "payer");
    const rpc = new BitcoinRpc(node.rpcUrl, node.cookieFile);
    const place = { blockNumber: 151, blockHash: hash as string, confirmations: 1 };
    const times = {
      verboseFetch: [] as number[],
      verboseMatch: [] as number[],
      rawFetch: [] as number[],
      rawParse: [] as number[],
    };
    let found = 0;
    let rawFound = 0;
    let shape = "";
    for (let i = 0; i < samples; i++) {
      // Before: the verbose JSON block, matched output by output.
      started = performance.now();
      const block = await rpc.call<{
        tx: { txid: string; vout: { value: number; n: number; scriptPubKey: { hex: string } }[] }[];
      }>("getblock", [hash, 2]);
      times.verboseFetch.push(performance.now() - started);
      started = performance.now();
      found = block.tx.flatMap((tx) => UtxoWatcher.match(tx, watched, place)).length;
      times.verboseMatch.push(performance.now() - started);
      const outputCount = block.tx.reduce((sum, tx) => sum + tx.vout.length, 0);
      shape = `${block.tx.length} transactions, ${outputCount} outputs`;
      // Now: what the watcher does, the raw block fetched, then parsed and matched in one pass.
      started = performance.now();
      const hex = await rpc.call<string>("getblock", [hash, 0]);
      times.rawFetch.push(performance.now() - started);
      started = performance.now();
      rawFound = blockOutputs(hex, (script) => watched.has(script)).length;
      times.rawParse.push(performance.now() - started);
    }
    console.log(`\nScan cost: one block (${shape}), ${WATCHED} watched addresses`);
    console.log(`  derive ${WATCHED} addresses (once)        ${fmt(deriveMs)}`);
    console.log(`  their output scripts (once, then cached) ${fmt(scriptsMs)}`);
    const before = median(times.verboseFetch) + median(times.verboseMatch);
    console.log(
      `  before: getblock <hash> 2 + match JSON   median ${fmt(median(times.verboseFetch))} + ` +
        `${fmt(median(times.verboseMatch))} = ${fmt(before)}  (${found} payments found)`,
    );
    const total = median(times.rawFetch) + median(times.rawParse);
    console.log(
      `  now: getblock <hash> 0 + parse raw       median ${fmt(median(times.rawFetch))} + ` +
        `${fmt(median(times.rawParse))} = ${fmt(total)}  (${rawFound} payments found)`,
    );
    const least = Math.min(...times.rawFetch) + Math.min(...times.rawParse);
    console.log(`  fastest of ${samples} (least disturbed by other load) ${fmt(least)}`);
    console.log(
      `  per block scanned                       ${fmt(total)}  target < 50 ms: ${total < 50 ? "met" : "MISSED"}`,
    );
  } finally {
    await node.stop();
  }
}

type Topup = { ref: string; status: string; deposit_address: string; deposit_amount: string };

async function latency(keys: ReturnType<typeof generateDemoWatchOnlyKeys>) {
  const litecoin = await startFundedLitecoind();
  const monero = withMonero
    ? await startMonero({ address: moneroPrimaryAddress(keys), viewKey: keys.monero.viewKey })
    : undefined;
  const { miner } = litecoin;
  const bitcoin = await startFundedBcoin();
  const btcMiner = bitcoin.miner;
  const app = await startApp({
    ...watchOnlyKeyEnv(keys),
    ...(monero ? { XMR_WALLET_RPC_URL: monero.serviceWalletUrl } : {}),
    LTC_RPC_URL: litecoin.rpcUrl,
    LTC_RPC_COOKIE_FILE: litecoin.cookieFile,
    LTC_CHAIN: "regtest",
    BTC_RPC_URL: bitcoin.rpcUrl,
    BTC_CHAIN: "regtest",
    // One account per sample and coin: more than the default 10 sign-ups an hour from one address.
    RATE_LIMIT_ACCOUNT_CREATE: "1000/1h",
  }).catch(async (error) => {
    // No app, no measurement: the nodes must not outlive the script.
    await Promise.all([monero?.stop(), litecoin.stop(), bitcoin.stop()]);
    throw error;
  });
  const api = async (path: string, init: RequestInit = {}, key?: string) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (key) headers.authorization = `Bearer ${key}`;
    return (await fetch(`${app.url}/api/v1${path}`, { ...init, headers }).then((r) => r.json())) as Record<
      string,
      unknown
    >;
  };
  const measure = async (coin: string, pay: (t: Topup) => Promise<void>, confirm: () => Promise<void>) => {
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const { api_key: key } = (await api("/account", { method: "POST" })) as { api_key: string };
      const topup = (await api(
        "/topups",
        { method: "POST", body: JSON.stringify({ amount: 30, coin }) },
        key,
      )) as unknown as Topup;
      if (!topup.deposit_address) throw new Error(`${coin} top-up refused: ${JSON.stringify(topup)}`);
      await pay(topup);
      const started = await confirm().then(() => performance.now());
      for (;;) {
        const now = (await api(`/topups/${topup.ref}`, {}, key)) as unknown as Topup;
        if (now.status === "completed") break;
        if (performance.now() - started > 60_000) throw new Error(`${coin} top-up not credited in 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      times.push(performance.now() - started);
    }
    console.log(
      `  ${coin.padEnd(4)} block -> credit: median ${fmt(median(times))}, max ${fmt(Math.max(...times))} ` +
        `(${samples} payments; target: within one interval, 5000 ms)`,
    );
  };
  try {
    console.log("\nBlock-to-credit latency at WATCHER_INTERVAL_MS=5000 (default)");
    await measure(
      "LTC",
      async (t) => {
        await litecoin.rpc("sendtoaddress", [t.deposit_address, t.deposit_amount], "payer");
        await litecoin.rpc("generatetoaddress", [5, miner], "payer");
      },
      async () => {
        await litecoin.rpc("generatetoaddress", [1, miner], "payer");
      },
    );
    await measure(
      "BTC",
      async (t) => {
        await bitcoin.rpc("sendtoaddress", [t.deposit_address, Number(t.deposit_amount)], "payer");
        await bitcoin.rpc("generatetoaddress", [1, btcMiner]);
      },
      async () => {
        await bitcoin.rpc("generatetoaddress", [1, btcMiner]);
      },
    );
    if (monero) {
      await measure(
        "XMR",
        async (t) => {
          await monero.payer("refresh");
          const piconero = Math.round(Number(t.deposit_amount) * 1e12);
          await monero.payer("transfer", {
            destinations: [{ amount: piconero, address: t.deposit_address }],
          });
          await monero.mine(9);
        },
        () => monero.mine(1),
      );
    }
  } finally {
    await app.stop();
    await monero?.stop();
    await litecoin.stop();
    await bitcoin.stop();
  }
}

const keys = generateDemoWatchOnlyKeys();
if (!args.includes("--no-scan")) await scanCost(keys);
await latency(keys);
