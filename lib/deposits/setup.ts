import "server-only";
import { config } from "@/lib/config/env";
import { processWide } from "@/lib/process-wide";
import { DEPOSIT_COINS, type DepositCoinCode } from "@/lib/topups/coins";
import { CoinGeckoRates, DemoFixedRates, type RateSource } from "@/lib/topups/rates";
import { DemoWatcher } from "./demo-watcher";
import { EvmWatcher } from "./evm-watcher";
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
 * Which watcher covers which network: the EVM watcher when an Ethereum RPC is configured; in demo mode,
 * the demo watcher for every other network; in production, nothing else (those coins are unavailable).
 */
export function depositRails(): DepositRails {
  return processWide("deposits.rails", () => {
    const settings = config();
    const watchers: DepositWatcher[] = [];
    if (settings.deposits.evm.rpcUrl) {
      watchers.push(new EvmWatcher(settings.deposits.evm.rpcUrl, settings.deposits.evm.usdtAddress));
    }
    const covered = new Set(watchers.flatMap((watcher) => watcher.networks));
    const demoWatcher =
      settings.mode === "demo" ? new DemoWatcher(ALL_NETWORKS.filter((n) => !covered.has(n))) : undefined;
    if (demoWatcher) watchers.push(demoWatcher);
    const rates =
      settings.deposits.rateSource.kind === "demo-fixed"
        ? new DemoFixedRates()
        : new CoinGeckoRates(settings.deposits.rateSource.url);
    return {
      rates,
      watchers,
      demoWatcher,
      watcherFor: (network) => watchers.find((watcher) => watcher.networks.includes(network)),
    };
  });
}

/** Why a coin cannot be used for a top-up right now, or undefined when it can. */
export function coinUnavailableReason(code: DepositCoinCode): string | undefined {
  const coin = DEPOSIT_COINS[code];
  if (!config().deposits.keys[coin.chain]) return `${code} deposits are not configured on this service.`;
  if (!depositRails().watcherFor(coin.network))
    return `${code} deposits are not watched on this service yet.`;
  return undefined;
}
