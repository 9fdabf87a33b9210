import "server-only";
import type { DepositChain, DepositFamily } from "../family";
import { BITCOIN_KEYS, LITECOIN_KEYS, type UtxoChain } from "./address";
import { UTXO_SETTINGS, utxoSettings } from "./config";
import { utxoPaymentUri } from "./payment-uri";
import { UtxoWatcher } from "./watcher";

const CHAINS: readonly UtxoChain[] = ["bitcoin", "litecoin"];

/** The node configured for `chain`, which must be one of this family's. */
function nodeOf(chain: DepositChain) {
  if (!(CHAINS as readonly string[]).includes(chain)) throw new RangeError(`${chain} is not a UTXO chain`);
  return utxoSettings()[chain as UtxoChain];
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
      const options = { network, rpcUrl: node.rpcUrl, cookieFile: node.cookieFile, net: node.chain };
      return [
        { name: UtxoWatcher.nameFor(network), networks: [network], create: () => new UtxoWatcher(options) },
      ];
    }),
};
