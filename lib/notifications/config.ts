import "server-only";
import { z } from "zod";
import { ConfigError, envSlice } from "@/lib/config/slice";

/** Webhooks and push topics: when owners are warned, when a failing endpoint is turned off. */
export type NotificationSettings = {
  /** Lead times of the expiry warnings, in hours, longest first. */
  expiryWarningHours: number[];
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterDays: number;
  /** Demo mode only, for tests: endpoints on loopback (127.0.0.0/8, ::1) are allowed. */
  allowLoopback: boolean;
  /** Demo mode only, for tests: every retry waits this long instead of the schedule. */
  testRetryMs: number | undefined;
};

/** `72,24`: how many hours before a server's expiry its owner is warned, at most 5 lead times, latest last. */
const expiryWarningHours = z
  .string()
  .default("72,24")
  .transform((value, context) => {
    const hours = value
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)
      .map(Number);
    if (hours.length > 5 || hours.some((h) => !Number.isInteger(h) || h < 1 || h > 720)) {
      context.addIssue({
        code: "custom",
        message: `expected up to 5 whole numbers of hours from 1 to 720 separated by commas, got "${value}"`,
      });
      return z.NEVER;
    }
    return [...new Set(hours)].sort((a, b) => b - a);
  });

export const NOTIFICATION_SETTINGS = envSlice({
  name: "notifications",
  shape: {
    NOTIFY_EXPIRY_WARNING_HOURS: expiryWarningHours,
    NOTIFY_DISABLE_AFTER_DAYS: z.coerce.number().int().min(1).max(30).default(5),
    NOTIFY_TEST_ALLOW_LOOPBACK: z.enum(["0", "1"]).default("0"),
    NOTIFY_TEST_RETRY_MS: z.coerce.number().int().min(10).max(60_000).optional(),
  },
  derive(values, { mode }): NotificationSettings {
    // Test-only switches that would weaken what a production deployment promises: refused outright there.
    if (mode === "production" && values.NOTIFY_TEST_ALLOW_LOOPBACK === "1") {
      throw new ConfigError(["NOTIFY_TEST_ALLOW_LOOPBACK: only allowed in demo mode (tests)"]);
    }
    if (mode === "production" && values.NOTIFY_TEST_RETRY_MS !== undefined) {
      throw new ConfigError(["NOTIFY_TEST_RETRY_MS: only allowed in demo mode (tests)"]);
    }
    return {
      expiryWarningHours: values.NOTIFY_EXPIRY_WARNING_HOURS,
      disableAfterDays: values.NOTIFY_DISABLE_AFTER_DAYS,
      allowLoopback: values.NOTIFY_TEST_ALLOW_LOOPBACK === "1",
      testRetryMs: values.NOTIFY_TEST_RETRY_MS,
    };
  },
});

/** The process's notification settings. */
export const notificationSettings = () => NOTIFICATION_SETTINGS.read();
