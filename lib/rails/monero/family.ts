import "server-only";
import type { DepositFamily } from "../family";
import { MONERO_KEYS, moneroPrimaryAddress } from "./address";
import { MONERO_SETTINGS, moneroSettings } from "./config";
import { moneroPaymentUri } from "./payment-uri";
import { MONERO_WATCHER, MoneroWatcher } from "./watcher";
import { MoneroZmqPush } from "./zmq-push";

/** Monero: subaddresses of a view-only wallet, read through monero-wallet-rpc. */
export const MONERO_FAMILY: DepositFamily = {
  id: "monero",
  method: "deposit",
  chains: [MONERO_KEYS],
  settings: MONERO_SETTINGS,
  addressNet: () => "main",
  paymentUri: (_coin, request) => moneroPaymentUri(request),
  uriContext: () => ({}),
  // A wallet-less service has no real Monero payments to link to.
  explorerTxUrl: (coin) => (moneroSettings().walletRpcUrl ? coin.explorerTxUrl : undefined),
  watchers(keys) {
    const { walletRpcUrl, zmqUrl } = moneroSettings();
    if (!walletRpcUrl || !keys.monero) return [];
    const create = () =>
      new MoneroWatcher({
        walletRpcUrl,
        primaryAddress: moneroPrimaryAddress(keys),
        push: zmqUrl ? new MoneroZmqPush(zmqUrl) : undefined,
      });
    return [{ ...MONERO_WATCHER, create }];
  },
};
