import "server-only";
import { envSlice, httpUrl } from "@/lib/config/slice";

/** A view-only monero-wallet-rpc made from DEPOSIT_XMR_VIEW_KEY and DEPOSIT_XMR_SPEND_PUBLIC_KEY. */
export const MONERO_SETTINGS = envSlice({
  name: "monero",
  shape: { XMR_WALLET_RPC_URL: httpUrl },
  derive: (values) => ({ walletRpcUrl: values.XMR_WALLET_RPC_URL }),
});

export const moneroSettings = () => MONERO_SETTINGS.read();
