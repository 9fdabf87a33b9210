import "server-only";
import { isIP } from "node:net";
import { z } from "zod";
import { ConfigError, envSlice, optionalText } from "@/lib/config/slice";
import { isDepositCoin } from "@/lib/rails/registry";
import type { NodeExpectations } from "./node-view";

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

/** `127.0.0.1:9735`, `[::1]:9735`: where the block-notify listener takes nodes' notices (an IP, not a name). */
const listenAddress = optionalText.pipe(
  z
    .string()
    .transform((value, context) => {
      const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(value);
      const host = match?.[1] ?? match?.[2];
      const port = Number(match?.[3]);
      if (!host || !isIP(host) || port < 1 || port > 65535) {
        context.addIssue({
          code: "custom",
          message: `expected IP:PORT such as 127.0.0.1:9735, got "${value}"`,
        });
        return z.NEVER;
      }
      return { host, port };
    })
    .optional(),
);

/**
 * What every deposit watcher shares: how often they poll (slower while their node's push works), where nodes
 * send block notices, how long a closed top-up stays watched, per-coin overrides.
 */
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
    WATCHER_PUSH_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
    WATCHER_MIN_PEERS: z.coerce.number().int().min(0).max(1_000).optional(),
    WATCHER_MAX_TIP_AGE_BLOCKS: z.coerce.number().int().min(0).max(10_000).optional(),
    DEPOSIT_NOTIFY_LISTEN: listenAddress,
    DEPOSIT_NOTIFY_SECRET: optionalText.pipe(z.string().min(32, "must be at least 32 characters").optional()),
  },
  derive(values) {
    const unknownCoins = Object.keys(values.DEPOSIT_CONFIRMATIONS).filter((coin) => !isDepositCoin(coin));
    if (unknownCoins.length > 0) {
      throw new ConfigError([`DEPOSIT_CONFIRMATIONS: unknown coin ${unknownCoins.join(", ")}`]);
    }
    if (values.DEPOSIT_NOTIFY_LISTEN && !values.DEPOSIT_NOTIFY_SECRET) {
      throw new ConfigError([
        "DEPOSIT_NOTIFY_SECRET: required with DEPOSIT_NOTIFY_LISTEN (nodes prove their notices with it)",
      ]);
    }
    return {
      confirmationOverrides: values.DEPOSIT_CONFIRMATIONS,
      /** Per coin: a public explorer's transaction page set by the operator, over the coin's default. */
      explorerTxUrls: values.EXPLORER_TX_URLS,
      latePaymentWindowHours: values.LATE_PAYMENT_WINDOW_HOURS,
      watcherIntervalMs: values.WATCHER_INTERVAL_MS,
      /** How often a watcher polls while its node's push is healthy (never more often than the interval above). */
      pushIntervalMs: Math.max(values.WATCHER_PUSH_INTERVAL_MS, values.WATCHER_INTERVAL_MS),
      /** Set by the operator: the peers a node must have, and how many blocks' time its tip may be old. */
      nodeChecks: { minPeers: values.WATCHER_MIN_PEERS, maxTipAgeBlocks: values.WATCHER_MAX_TIP_AGE_BLOCKS },
      /** The listener nodes' `-blocknotify` commands call, with the secret they must send; unset: none. */
      notify: values.DEPOSIT_NOTIFY_LISTEN
        ? { ...values.DEPOSIT_NOTIFY_LISTEN, secret: values.DEPOSIT_NOTIFY_SECRET as string }
        : undefined,
    };
  },
});

/** The process's deposit settings. */
export const depositSettings = () => DEPOSIT_SETTINGS.read();

/**
 * What health expects of a node on `chain` whose blocks come every `blockSeconds`: one peer at least and a
 * newest block younger than twelve blocks' time (Bitcoin: 2 hours; a longer gap happens about once in
 * 160,000 blocks), unless the operator set otherwise. A regtest node is alone and idle by design: unset,
 * neither is checked there.
 */
export function nodeExpectations(chain: "main" | "regtest", blockSeconds: number): NodeExpectations {
  const { minPeers, maxTipAgeBlocks } = depositSettings().nodeChecks;
  const tipAgeBlocks = maxTipAgeBlocks ?? (chain === "regtest" ? 0 : 12);
  return {
    minPeers: minPeers ?? (chain === "regtest" ? 0 : 1),
    maxTipAgeSeconds: tipAgeBlocks > 0 ? tipAgeBlocks * blockSeconds : null,
    blockSeconds,
  };
}
