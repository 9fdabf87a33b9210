import "server-only";
import { z } from "zod";
import { envSlice, httpUrl, optionalText } from "@/lib/config/slice";

export type UtxoNodeConfig = {
  rpcUrl: string | undefined;
  cookieFile: string | undefined;
  /** The address format: `bc1`/`ltc1` on main, `bcrt1`/`rltc1` on regtest. */
  chain: "main" | "regtest";
  /**
   * How the node tells of new blocks: `notify`, its `-blocknotify` command calls the notify listener
   * (DEPOSIT_NOTIFY_LISTEN); `bcoin`, bcoin's socket at the RPC's address; undefined, it is polled only.
   */
  push: "notify" | "bcoin" | undefined;
};

const push = optionalText.pipe(z.enum(["notify", "bcoin"]).optional());

/** Bitcoin Core-style nodes (bitcoind, litecoind, bcoin), one per chain. */
export const UTXO_SETTINGS = envSlice({
  name: "utxo",
  shape: {
    BTC_RPC_URL: httpUrl,
    BTC_RPC_COOKIE_FILE: optionalText,
    BTC_CHAIN: z.enum(["main", "regtest"]).default("main"),
    BTC_PUSH: push,
    LTC_RPC_URL: httpUrl,
    LTC_RPC_COOKIE_FILE: optionalText,
    LTC_CHAIN: z.enum(["main", "regtest"]).default("main"),
    LTC_PUSH: optionalText.pipe(z.enum(["notify"]).optional()),
  },
  derive: (values): Record<"bitcoin" | "litecoin", UtxoNodeConfig> => ({
    bitcoin: {
      rpcUrl: values.BTC_RPC_URL,
      cookieFile: values.BTC_RPC_COOKIE_FILE,
      chain: values.BTC_CHAIN,
      push: values.BTC_PUSH,
    },
    litecoin: {
      rpcUrl: values.LTC_RPC_URL,
      cookieFile: values.LTC_RPC_COOKIE_FILE,
      chain: values.LTC_CHAIN,
      push: values.LTC_PUSH,
    },
  }),
});

export const utxoSettings = () => UTXO_SETTINGS.read();
