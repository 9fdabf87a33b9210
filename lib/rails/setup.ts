import "server-only";
import { config } from "@/lib/config/env";
import { processWide } from "@/lib/util/process-wide";
import { watchOnlyKeys } from "./addresses";
import { depositSettings } from "./deposits/config";
import { readCursor } from "./deposits/cursor";
import { DemoWatcher } from "./deposits/demo-watcher";
import type { DepositWatcher } from "./deposits/watcher";
import { DEPOSIT_FAMILIES, familyOf } from "./families";
import { type RateSource, rateSource } from "./rates";
import { DEPOSIT_COINS, DEPOSIT_NETWORKS, type DepositCoinCode } from "./registry";

export type DepositRails = {
  rates: RateSource;
  watchers: DepositWatcher[];
  /** The demo watcher, present only in demo mode. */
  demoWatcher: DemoWatcher | undefined;
  watcherFor(network: string): DepositWatcher | undefined;
};

/**
 * Stands in for a watcher that could not be built (its settings passed the start-up checks but its
 * constructor still refused them): it covers its networks, so their coins are unavailable rather than
 * simulated, and every poll reports why. The other watchers, health and top-up reads go on as usual.
 */
class UnbuiltWatcher implements DepositWatcher {
  readonly demo = false;

  constructor(
    readonly name: string,
    readonly networks: readonly string[],
    readonly reason: string,
  ) {}

  poll(): Promise<number[]> {
    return Promise.reject(new Error(this.reason));
  }
}

function build(identity: { name: string; networks: readonly string[] }, create: () => DepositWatcher) {
  try {
    return create();
  } catch (error) {
    const reason = `the ${identity.name} watcher could not start: ${(error as Error).message}`;
    console.error(reason);
    return new UnbuiltWatcher(identity.name, identity.networks, reason);
  }
}

/**
 * Which watcher covers which network: each family's watchers for the nodes configured (the EVM watcher with an
 * Ethereum RPC, a UTXO watcher per Bitcoin Core-style node, the Monero watcher with a view-only wallet RPC, the
 * TRON watcher with java-tron's JSON-RPC); in demo mode, the demo watcher for every other network; in
 * production, nothing else (those coins are unavailable).
 */
export function depositRails(): DepositRails {
  return processWide("deposits.rails", () => {
    const { keys } = watchOnlyKeys();
    const watchers: DepositWatcher[] = DEPOSIT_FAMILIES.flatMap((family) =>
      family.watchers(keys).map((plan) => build(plan, plan.create)),
    );
    const covered = new Set(watchers.flatMap((watcher) => watcher.networks));
    const demoWatcher =
      config().mode === "demo" ? new DemoWatcher(DEPOSIT_NETWORKS.filter((n) => !covered.has(n))) : undefined;
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
export const staleAfterMs = () => Math.max(30_000, depositSettings().watcherIntervalMs * 6);

/**
 * Why a coin cannot be used for a new top-up right now, or undefined when it can: no key, no watcher, or
 * the watcher's node is down (existing top-ups keep waiting; the watcher catches up when it is back).
 */
export async function coinUnavailableReason(code: DepositCoinCode): Promise<string | undefined> {
  const coin = DEPOSIT_COINS[code];
  if (!watchOnlyKeys().keys[coin.chain]) return `${code} deposits are not configured on this service.`;
  const watcher = depositRails().watcherFor(coin.network);
  if (!watcher) return `${code} deposits are not watched on this service yet.`;
  if (watcher.demo) return undefined;
  if (watcher instanceof UnbuiltWatcher) return `${code} deposits are paused: ${watcher.reason}.`;
  const cursor = await readCursor(watcher.name);
  // Plain words for customers: what is wrong with the node is for the operator (health and the log).
  const stale = cursor?.checkedAt && Date.now() - cursor.checkedAt.getTime() > staleAfterMs();
  if (cursor?.lastError || stale) {
    return `${code} deposits are paused: the ${coin.network} network cannot be watched right now. Top-ups already open are credited once it is back; try again later or use another coin.`;
  }
  return undefined;
}

/** The public explorer's page for a payment in `code`: the operator's link, else the family's, if any. */
export function explorerTxUrl(code: string): string | undefined {
  const configured = depositSettings().explorerTxUrls[code];
  if (configured) return configured;
  const coin = Object.hasOwn(DEPOSIT_COINS, code) ? DEPOSIT_COINS[code as DepositCoinCode] : undefined;
  return coin && familyOf(coin).explorerTxUrl(coin);
}
