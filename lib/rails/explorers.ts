import "server-only";
import { depositSettings } from "./deposits/config";
import { moneroSettings } from "./monero/config";
import { utxoSettings } from "./utxo/config";

/** Per coin: a public explorer's transaction page, `{tx}` standing for the transaction id. */
export function explorerTxUrls(): Record<string, string> {
  const utxo = utxoSettings();
  return {
    // Public mainnet explorers; a coin watched on regtest has none unless configured.
    ...(utxo.bitcoin.chain === "main" ? { BTC: "https://mempool.space/tx/{tx}" } : {}),
    ...(utxo.litecoin.chain === "main" ? { LTC: "https://litecoinspace.org/tx/{tx}" } : {}),
    ...(moneroSettings().walletRpcUrl ? { XMR: "https://xmrchain.net/tx/{tx}" } : {}),
    ETH: "https://etherscan.io/tx/{tx}",
    USDT: "https://etherscan.io/tx/{tx}",
    USDTTRC: "https://tronscan.org/#/transaction/{tx}",
    ...depositSettings().explorerTxUrls,
  };
}
