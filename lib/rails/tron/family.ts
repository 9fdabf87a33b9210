import "server-only";
import type { DepositFamily } from "../family";
import { evmHexToTron, TRON_KEYS } from "./address";
import { TRON_SETTINGS, tronSettings } from "./config";
import { tronPaymentUri } from "./payment-uri";
import { TRON_WATCHER, TronWatcher } from "./watcher";

/** TRC-20 tokens on Tron, read through java-tron's Ethereum-style JSON-RPC. */
export const TRON_FAMILY: DepositFamily = {
  id: "tron",
  method: "deposit",
  chains: [TRON_KEYS],
  settings: TRON_SETTINGS,
  addressNet: () => "main",
  paymentUri: (_coin, request) => tronPaymentUri(request),
  uriContext(coin) {
    // The contract in the payment URI is always in TRON's own `T…` form.
    const contract = tronSettings().tokens[coin.code];
    return { tokenContract: contract?.startsWith("0x") ? evmHexToTron(contract) : contract };
  },
  explorerTxUrl: (coin) => coin.explorerTxUrl,
  watchers() {
    const { rpcUrl, solidityRpcUrl, tokens } = tronSettings();
    if (!rpcUrl) return [];
    return [{ ...TRON_WATCHER, create: () => new TronWatcher({ rpcUrl, solidityRpcUrl, tokens }) }];
  },
};
