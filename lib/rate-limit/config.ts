import "server-only";
import { z } from "zod";
import { envSlice } from "@/lib/config/slice";

export type RateLimitSpec = { limit: number; windowSeconds: number };

/** A rate limit written as `count/window`, e.g. `10/1h` or `20/10m`. */
const rateLimitSpec = z
  .string()
  .regex(/^\d+\/\d+[smh]$/, "expected COUNT/WINDOW such as 10/1h, 20/10m or 5/30s")
  .transform((value): RateLimitSpec => {
    const [countText, windowText] = value.split("/") as [string, string];
    const unit = windowText.slice(-1);
    const amount = Number(windowText.slice(0, -1));
    const seconds = amount * (unit === "h" ? 3600 : unit === "m" ? 60 : 1);
    return { limit: Number(countText), windowSeconds: seconds };
  })
  .refine((spec) => spec.limit > 0 && spec.windowSeconds > 0, "count and window must be positive");

/** How often each guess, creation and costly call may be made, per client address or per account. */
export const RATE_LIMIT_SETTINGS = envSlice({
  name: "rate-limits",
  shape: {
    RATE_LIMIT_ACCOUNT_CREATE: rateLimitSpec.prefault("10/1h"),
    RATE_LIMIT_AUTH_FAILURES: rateLimitSpec.prefault("20/10m"),
    RATE_LIMIT_LOGIN_FAILURES: rateLimitSpec.prefault("10/15m"),
    RATE_LIMIT_TOTP_FAILURES: rateLimitSpec.prefault("5/10m"),
    RATE_LIMIT_TOTP_ACCOUNT_FAILURES: rateLimitSpec.prefault("30/24h"),
    RATE_LIMIT_RECOVERY_FAILURES: rateLimitSpec.prefault("5/1h"),
    RATE_LIMIT_WALLET_RPC: rateLimitSpec.prefault("120/1m"),
    RATE_LIMIT_X402_ATTEMPTS: rateLimitSpec.prefault("30/10m"),
    RATE_LIMIT_DEPOSIT_TOPUPS: rateLimitSpec.prefault("100/168h"),
    RATE_LIMIT_HOST_OPERATIONS: rateLimitSpec.prefault("30/10m"),
    RATE_LIMIT_NOTIFICATION_SENDS: rateLimitSpec.prefault("30/10m"),
    RATE_LIMIT_WEBHOOK_URLS: rateLimitSpec.prefault("20/1h"),
    RATE_LIMIT_CONSOLE_TICKETS: rateLimitSpec.prefault("30/10m"),
    RATE_LIMIT_CONSOLE_TICKETS_SERVER: rateLimitSpec.prefault("10/1m"),
    RATE_LIMIT_OPERATOR_SIGNIN: rateLimitSpec.prefault("5/15m"),
    RATE_LIMIT_OPERATOR_REQUESTS: rateLimitSpec.prefault("600/10m"),
  },
  derive: (values) => ({
    accountCreate: values.RATE_LIMIT_ACCOUNT_CREATE,
    authFailures: values.RATE_LIMIT_AUTH_FAILURES,
    loginFailures: values.RATE_LIMIT_LOGIN_FAILURES,
    totpFailures: values.RATE_LIMIT_TOTP_FAILURES,
    totpAccountFailures: values.RATE_LIMIT_TOTP_ACCOUNT_FAILURES,
    recoveryFailures: values.RATE_LIMIT_RECOVERY_FAILURES,
    walletRpc: values.RATE_LIMIT_WALLET_RPC,
    x402Attempts: values.RATE_LIMIT_X402_ATTEMPTS,
    /** Deposit top-ups an account may create per window, whatever became of them (each is an address watched). */
    depositTopups: values.RATE_LIMIT_DEPOSIT_TOPUPS,
    hostOperations: values.RATE_LIMIT_HOST_OPERATIONS,
    /** Test sends and redeliveries of notifications, per account: each is a request to the customer's URL. */
    notificationSends: values.RATE_LIMIT_NOTIFICATION_SENDS,
    /** New and changed endpoint URLs, per account: each has its host resolved. */
    webhookUrls: values.RATE_LIMIT_WEBHOOK_URLS,
    /** Console tickets, per account: each may open a session (virsh and socat, a console.opened event). */
    consoleTickets: values.RATE_LIMIT_CONSOLE_TICKETS,
    /** Console tickets, per server. */
    consoleTicketsServer: values.RATE_LIMIT_CONSOLE_TICKETS_SERVER,
    /** Failed operator sign-ins, per client address and per operator. */
    operatorSignIn: values.RATE_LIMIT_OPERATOR_SIGNIN,
    /** Operator API requests, per operator. */
    operatorRequests: values.RATE_LIMIT_OPERATOR_REQUESTS,
  }),
});

export type RateLimitSettings = ReturnType<typeof RATE_LIMIT_SETTINGS.parse>;

/** The process's rate limits. */
export const rateLimitSettings = () => RATE_LIMIT_SETTINGS.read();
