import "server-only";
import { ConfigError, envSlice, optionalText } from "@/lib/config/slice";
import {
  generateDemoWatchOnlyKeys,
  validateWatchOnlyKeys,
  type WatchOnlyKeys,
} from "@/lib/rails/deposits/addresses";

/**
 * The watch-only keys every deposit address is derived from. Unset keys are fine: their coins are simply not
 * offered. In demo mode with no key at all, keys are generated once into DATA_DIR (public parts only).
 */
export const DEPOSIT_KEY_SETTINGS = envSlice({
  name: "watch-only-keys",
  shape: {
    DEPOSIT_XPUB_BTC: optionalText,
    DEPOSIT_XPUB_LTC: optionalText,
    DEPOSIT_XPUB_ETH: optionalText,
    DEPOSIT_XPUB_TRX: optionalText,
    DEPOSIT_XMR_VIEW_KEY: optionalText,
    DEPOSIT_XMR_SPEND_PUBLIC_KEY: optionalText,
  },
  derive(values, { mode, demoValue }): { keys: WatchOnlyKeys; demoKeys: boolean } {
    const configured: WatchOnlyKeys = {
      bitcoin: values.DEPOSIT_XPUB_BTC,
      litecoin: values.DEPOSIT_XPUB_LTC,
      ethereum: values.DEPOSIT_XPUB_ETH,
      tron: values.DEPOSIT_XPUB_TRX,
      monero:
        values.DEPOSIT_XMR_VIEW_KEY || values.DEPOSIT_XMR_SPEND_PUBLIC_KEY
          ? {
              viewKey: values.DEPOSIT_XMR_VIEW_KEY ?? "",
              spendPublicKey: values.DEPOSIT_XMR_SPEND_PUBLIC_KEY ?? "",
            }
          : undefined,
    };
    const problems = validateWatchOnlyKeys(configured);
    if (problems.length > 0) throw new ConfigError(problems);
    const anyConfigured = Object.values(configured).some((key) => key !== undefined);
    if (anyConfigured || mode !== "demo") return { keys: configured, demoKeys: false };
    return { keys: demoValue("depositKeys", generateDemoWatchOnlyKeys), demoKeys: true };
  },
});

/** The process's watch-only keys; `demoKeys` when they were generated for the demo rather than configured. */
export const watchOnlyKeys = () => DEPOSIT_KEY_SETTINGS.read();
