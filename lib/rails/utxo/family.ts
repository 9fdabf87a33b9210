import "server-only";
import { depositSettings, nodeExpectations } from "../deposits/config";
import { NotifyPush } from "../deposits/notify-listener";
import type { PushLink } from "../deposits/push";
import type { DepositChain, DepositFamily } from "../family";
import { BITCOIN_KEYS, LITECOIN_KEYS, type UtxoChain } from "./address";
import { BcoinPush } from "./bcoin-push";
import { UTXO_SETTINGS, type UtxoNodeConfig, utxoSettings } from "./config";
import { utxoPaymentUri } from "./payment-uri";
import { UtxoWatcher } from "./watcher";

const CHAINS: readonly UtxoChain[] = ["bitcoin", "litecoin"];
/** Each chain's target block interval: what health measures a node's newest block against. */
const BLOCK_SECONDS: Record<UtxoChain, number> = { bitcoin: 600, litecoin: 150 };

/** The node configured for `chain`, which must be one of this family's. */
function nodeOf(chain: DepositChain) {
  if (!(CHAINS as readonly string[]).includes(chain)) throw new RangeError(`${chain} is not a UTXO chain`);
  return utxoSettings()[chain as UtxoChain];
}

/** The node's push as configured; the settings check has made sure a `notify` one has its listener. */
function pushOf(network: UtxoChain, node: UtxoNodeConfig & { rpcUrl: string }): PushLink | undefined {
  if (node.push === "bcoin") return new BcoinPush(node.rpcUrl);
  const listener = depositSettings().notify;
  if (node.push === "notify" && listener) return new NotifyPush(network, listener);
  return undefined;
}

/** Bitcoin and Litecoin: P2WPKH addresses, BIP21 URIs, one wallet-less watcher per configured node. */
export const UTXO_FAMILY: DepositFamily = {
  id: "utxo",
  method: "deposit",
  chains: [BITCOIN_KEYS, LITECOIN_KEYS],
  settings: UTXO_SETTINGS,
  addressNet: (chain) => nodeOf(chain).chain,
  paymentUri: utxoPaymentUri,
  uriContext: () => ({}),
  // Public mainnet explorers; a coin watched on regtest has none unless configured.
  explorerTxUrl: (coin) => (nodeOf(coin.chain).chain === "main" ? coin.explorerTxUrl : undefined),
  watchers: () =>
    CHAINS.flatMap((network) => {
      const node = utxoSettings()[network];
      if (!node.rpcUrl) return [];
      const { rpcUrl, cookieFile, chain: net } = node;
      const create = () =>
        new UtxoWatcher({
          network,
          rpcUrl,
          cookieFile,
          net,
          push: pushOf(network, { ...node, rpcUrl }),
          expectations: nodeExpectations(net, BLOCK_SECONDS[network]),
        });
      return [{ name: UtxoWatcher.nameFor(network), networks: [network], create }];
    }),
};
