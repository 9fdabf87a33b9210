import "server-only";
import { isIP } from "node:net";
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
  /** Name servers for endpoints' names (`address` or `address:port`); undefined: the system's. */
  dnsServers: string[] | undefined;
  /** Ports the operator allows besides 443 (and 80 outside production). */
  extraPorts: number[];
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

/** `1.1.1.1,9.9.9.9:53,[2606:4700:4700::1111]:53`: at most 4 name servers, by address. */
const dnsServers = z
  .string()
  .optional()
  .transform((value, context) => {
    const servers = (value ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean);
    if (servers.length === 0) return undefined;
    const valid = (server: string) => {
      const match = /^(?:\[([0-9a-f:.]+)\]|(\d+\.\d+\.\d+\.\d+))(?::(\d{1,5}))?$/i.exec(server);
      const port = match?.[3] === undefined ? 53 : Number(match[3]);
      return match !== null && isIP(match[1] ?? match[2] ?? "") !== 0 && port >= 1 && port <= 65_535;
    };
    if (servers.length > 4 || !servers.every(valid)) {
      context.addIssue({
        code: "custom",
        message: `expected up to 4 name server addresses (1.1.1.1, 1.1.1.1:53, [2606:4700::1111]:53), got "${value}"`,
      });
      return z.NEVER;
    }
    return servers;
  });

/** `8443,9443`: ports besides 443 (and 80 outside production) that endpoints may use. */
const extraPorts = z
  .string()
  .default("")
  .transform((value, context) => {
    const ports = value
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean)
      .map(Number);
    if (ports.some((port) => !Number.isInteger(port) || port < 1 || port > 65_535)) {
      context.addIssue({
        code: "custom",
        message: `expected port numbers separated by commas, got "${value}"`,
      });
      return z.NEVER;
    }
    return [...new Set(ports)];
  });

export const NOTIFICATION_SETTINGS = envSlice({
  name: "notifications",
  shape: {
    NOTIFY_EXPIRY_WARNING_HOURS: expiryWarningHours,
    NOTIFY_DISABLE_AFTER_DAYS: z.coerce.number().int().min(1).max(30).default(5),
    NOTIFY_TEST_ALLOW_LOOPBACK: z.enum(["0", "1"]).default("0"),
    NOTIFY_TEST_RETRY_MS: z.coerce.number().int().min(10).max(60_000).optional(),
    NOTIFY_DNS_SERVERS: dnsServers,
    NOTIFY_ALLOWED_PORTS: extraPorts,
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
      dnsServers: values.NOTIFY_DNS_SERVERS,
      extraPorts: values.NOTIFY_ALLOWED_PORTS,
    };
  },
});

/** The process's notification settings. */
export const notificationSettings = () => NOTIFICATION_SETTINGS.read();
