import "server-only";
import type { DepositFamily } from "../family";
import { ETHEREUM_KEYS } from "./address";
import { EVM_SETTINGS, evmSettings } from "./config";
import { evmPaymentUri } from "./payment-uri";
import { EVM_WATCHER, EvmWatcher } from "./watcher";
import { NewHeadsPush } from "./ws-push";

/** Ether and its ERC-20 tokens: one key, EIP-681 URIs, one watcher reading blocks and Transfer logs. */
export const EVM_FAMILY: DepositFamily = {
  id: "evm",
  method: "deposit",
  chains: [ETHEREUM_KEYS],
  settings: EVM_SETTINGS,
  addressNet: () => "main",
  paymentUri: evmPaymentUri,
  uriContext: (coin) => ({ tokenContract: evmSettings().tokens[coin.code], chainId: evmSettings().chainId }),
  explorerTxUrl: (coin) => coin.explorerTxUrl,
  watchers() {
    const { rpcUrl, wsUrl, tokens, traceInternalTransfers } = evmSettings();
    if (!rpcUrl) return [];
    const create = () =>
      new EvmWatcher({
        rpcUrl,
        tokens,
        traceInternalTransfers,
        push: wsUrl ? new NewHeadsPush(wsUrl) : undefined,
      });
    return [{ ...EVM_WATCHER, create }];
  },
};
