import "server-only";
import { DEPOSIT_COINS, type DepositCoinCode } from "@/lib/coins/registry";
import { config } from "@/lib/config/env";
import { processWide } from "@/lib/process-wide";
import { type RateSource, rateSource } from "@/lib/topups/rates";
import { moneroPrimaryAddress } from "./addresses";
import { readCursor } from "./cursor";
import { DemoWatcher } from "./demo-watcher";
import { EvmWatcher } from "./evm-watcher";
import { MoneroWatcher } from "./monero-watcher";
import { TronWatcher } from "./tron-watcher";
import { UtxoWatcher } from "./utxo-watcher";
import type { DepositWatcher } from "./watcher";

export type DepositRails = {
  rates: RateSource;
  watchers: DepositWatcher[];
  /** The demo watcher, present only in demo mode. */
  demoWatcher: DemoWatcher | undefined;
  watcherFor(network: string): DepositWatcher | undefined;
};

const ALL_NETWORKS = [...new Set(Object.values(DEPOSIT_COINS).map((coin) => coin.network))];

/**
 * Which watcher covers which network: the EVM watcher when an Ethereum RPC is configured, the UTXO watcher
 * for each Bitcoin Core-style node configured, the Monero watcher with a view-only wallet RPC,
 * the TRON watcher with java-tron's JSON-RPC; in demo mode,
 * the demo watcher for every other network; in production, nothing else (those coins are unavailable).
 */
export function depositRails(): DepositRails {
  return processWide("deposits.rails", () => {
    const settings = config();
    const watchers: DepositWatcher[] = [];
    if (settings.deposits.evm.rpcUrl) {
      watchers.push(new EvmWatcher(settings.deposits.evm.rpcUrl, settings.deposits.evm.usdtAddress));
    }
    for (const network of ["bitcoin", "litecoin"] as const) {
      const node = settings.deposits.utxo[network];
      if (!node.rpcUrl) continue;
      watchers.push(
        new UtxoWatcher({ network, rpcUrl: node.rpcUrl, cookieFile: node.cookieFile, net: node.chain }),
      );
    }
    if (settings.deposits.moneroWalletRpcUrl && settings.deposits.keys.monero) {
      watchers.push(
        new MoneroWatcher({
          walletRpcUrl: settings.deposits.moneroWalletRpcUrl,
          primaryAddress: moneroPrimaryAddress(settings.deposits.keys),
        }),
      );
    }
    if (settings.deposits.tron.rpcUrl) {
      watchers.push(
        new TronWatcher({
          rpcUrl: settings.deposits.tron.rpcUrl,
          solidityRpcUrl: settings.deposits.tron.solidityRpcUrl,
          usdtContract: settings.deposits.tron.usdtContract,
        }),
      );
    }
    const covered = new Set(watchers.flatMap((watcher) => watcher.networks));
    const demoWatcher =
      settings.mode === "demo" ? new DemoWatcher(ALL_NETWORKS.filter((n) => !covered.has(n))) : undefined;
    if (demoWatcher) watchers.push(demoWatcher);
    return {
      rates: rateSource(),
      watchers,
      demoWatcher,
      watcherFor: (network) => watchers.find((watcher) => watcher.networks.includes(network)),
    };
  });
}

/** A watcher's node counts as down when its last poll failed, or when it has not polled for this long. */
export const staleAfterMs = () => Math.max(30_000, config().deposits.watcherIntervalMs * 6);

/**
 * Why a coin cannot be used for a new top-up right now, or undefined when it can: no key, no watcher, or
 * the watcher's node is down (existing top-ups keep waiting; the watcher catches up when it is back).
 */
export async function coinUnavailableReason(code: DepositCoinCode): Promise<string | undefined> {
  const coin = DEPOSIT_COINS[code];
  if (!config().deposits.keys[coin.chain]) return `${code} deposits are not configured on this service.`;
  const watcher = depositRails().watcherFor(coin.network);
  if (!watcher) return `${code} deposits are not watched on this service yet.`;
  if (watcher.demo) return undefined;
  const cursor = await readCursor(watcher.name);
  // Plain words for customers: what is wrong with the node is for the operator (health and the log).
  const stale = cursor?.checkedAt && Date.now() - cursor.checkedAt.getTime() > staleAfterMs();
  if (cursor?.lastError || stale) {
    return `${code} deposits are paused: the ${coin.network} network cannot be watched right now. Top-ups already open are credited once it is back; try again later or use another coin.`;
  }
  return undefined;
}
