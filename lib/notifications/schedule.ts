/**
 * When a failed delivery is tried again, and when an endpoint has failed long enough to be switched off.
 * Pure. The schedule is Standard Webhooks' suggestion: at once, then after 5 seconds, 5 minutes, 30 minutes,
 * 2 hours, 5 hours, 10 hours and 10 hours: 8 attempts over 27 hours 35 minutes and 5 seconds.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** The first attempt plus one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** From the first attempt to the last, when every one fails. */
export const RETRY_SPAN_SECONDS = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);

/**
 * When the next attempt is due after `attempts` failed ones, or null when they are used up. `testDelayMs`
 * (tests only) replaces every delay.
 */
export function nextAttemptAt(attempts: number, failedAt: Date, testDelayMs?: number): Date | null {
  if (attempts < 1 || attempts >= MAX_ATTEMPTS) return null;
  const delayMs = testDelayMs ?? (RETRY_DELAYS_SECONDS[attempts - 1] ?? 0) * 1000;
  return new Date(failedAt.getTime() + delayMs);
}

/** An endpoint failing since `failingSince` is disabled once `disableAfterDays` have passed without a success. */
export function shouldDisable(failingSince: Date | null, at: Date, disableAfterDays: number): boolean {
  return failingSince !== null && at.getTime() - failingSince.getTime() >= disableAfterDays * 86_400_000;
}

/** "27 hours 35 minutes 5 seconds" style, for messages and the documentation. */
export function describeSpan(seconds: number): string {
  const parts: string[] = [];
  const units: [number, string][] = [
    [86_400, "day"],
    [3600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  let rest = seconds;
  for (const [size, name] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${name}${count === 1 ? "" : "s"}`);
  }
  return parts.join(" ") || "0 seconds";
}
