import "server-only";
import { z } from "zod";
import { envSlice, httpUrl, optionalText } from "@/lib/config/slice";

/** monerod's ZMQ publisher: `tcp://host:port` (it has no authentication: loopback or a private network). */
const zmqUrl = optionalText.pipe(
  z.url({ protocol: /^tcp$/, message: "must be a tcp://host:port URL" }).optional(),
);

/**
 * A view-only monero-wallet-rpc made from DEPOSIT_XMR_VIEW_KEY and DEPOSIT_XMR_SPEND_PUBLIC_KEY, and the ZMQ
 * publisher of the monerod it reads (`--zmq-pub`), whose block notices wake the watcher.
 */
export const MONERO_SETTINGS = envSlice({
  name: "monero",
  shape: { XMR_WALLET_RPC_URL: httpUrl, XMR_ZMQ_URL: zmqUrl },
  derive: (values) => ({ walletRpcUrl: values.XMR_WALLET_RPC_URL, zmqUrl: values.XMR_ZMQ_URL }),
});

export const moneroSettings = () => MONERO_SETTINGS.read();
