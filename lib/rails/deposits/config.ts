import "server-only";
import { z } from "zod";
import { ConfigError, envSlice } from "@/lib/config/slice";
import { isDepositCoin } from "@/lib/rails/registry";

/** `ETH:3,USDT:3` -> per-coin confirmation counts that override the defaults. */
const confirmationOverrides = z
  .string()
  .default("")
  .transform((value, context) => {
    const result: Record<string, number> = {};
    for (const part of value
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean)) {
      const match = /^([A-Z]+):(\d{1,3})$/.exec(part);
      if (!match?.[1] || !match[2] || Number(match[2]) < 1) {
        context.addIssue({
          code: "custom",
          message: `expected COIN:COUNT pairs such as ETH:12, got "${part}"`,
        });
        return z.NEVER;
      }
      result[match[1]] = Number(match[2]);
    }
    return result;
  });

/** `BTC=https://mempool.space/tx/{tx},XMR=…`: per-coin explorer links, `{tx}` replaced by the transaction id. */
const explorerUrls = z
  .string()
  .default("")
  .transform((value, context) => {
    const result: Record<string, string> = {};
    for (const part of value
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean)) {
      const match = /^([A-Z]+)=(https:\/\/\S+)$/.exec(part);
      if (!match?.[1] || !match[2]?.includes("{tx}")) {
        context.addIssue({
          code: "custom",
          message: `expected COIN=https://…{tx}… pairs, got "${part}"`,
        });
        return z.NEVER;
      }
      result[match[1]] = match[2];
    }
    return result;
  });

/** What every deposit watcher shares: how often they poll, how long a closed top-up stays watched, per-coin overrides. */
export const DEPOSIT_SETTINGS = envSlice({
  name: "deposits",
  shape: {
    DEPOSIT_CONFIRMATIONS: confirmationOverrides,
    EXPLORER_TX_URLS: explorerUrls,
    LATE_PAYMENT_WINDOW_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .default(168),
    WATCHER_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  },
  derive(values) {
    const unknownCoins = Object.keys(values.DEPOSIT_CONFIRMATIONS).filter((coin) => !isDepositCoin(coin));
    if (unknownCoins.length > 0) {
      throw new ConfigError([`DEPOSIT_CONFIRMATIONS: unknown coin ${unknownCoins.join(", ")}`]);
    }
    return {
      confirmationOverrides: values.DEPOSIT_CONFIRMATIONS,
      /** Per coin: a public explorer's transaction page set by the operator, over the coin's default. */
      explorerTxUrls: values.EXPLORER_TX_URLS,
      latePaymentWindowHours: values.LATE_PAYMENT_WINDOW_HOURS,
      watcherIntervalMs: values.WATCHER_INTERVAL_MS,
    };
  },
});

/** The process's deposit settings. */
export const depositSettings = () => DEPOSIT_SETTINGS.read();
