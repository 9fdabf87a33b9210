import { describe, expect, it } from "vitest";
import { describeSpan, MAX_ATTEMPTS, nextAttemptAt, RETRY_SPAN_SECONDS, shouldDisable } from "./schedule";

const at = new Date("2026-12-01T10:00:00.000Z");
const later = (seconds: number) => new Date(at.getTime() + seconds * 1000).toISOString();

describe("the retry schedule", () => {
  it("retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: 8 attempts over about a day", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempts) => nextAttemptAt(attempts, at)?.toISOString());
    expect(delays).toEqual([
      later(5),
      later(300),
      later(1800),
      later(7200),
      later(18_000),
      later(36_000),
      later(36_000),
    ]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(RETRY_SPAN_SECONDS).toBe(99_305);
    expect(describeSpan(RETRY_SPAN_SECONDS)).toBe("1 day 3 hours 35 minutes 5 seconds");
  });

  it("gives up after the eighth attempt", () => {
    expect(nextAttemptAt(8, at)).toBeNull();
    expect(nextAttemptAt(9, at)).toBeNull();
    expect(nextAttemptAt(0, at)).toBeNull();
  });

  it("the test setting replaces every delay but not the number of attempts", () => {
    expect(nextAttemptAt(1, at, 250)?.toISOString()).toBe(new Date(at.getTime() + 250).toISOString());
    expect(nextAttemptAt(7, at, 250)?.toISOString()).toBe(new Date(at.getTime() + 250).toISOString());
    expect(nextAttemptAt(8, at, 250)).toBeNull();
  });
});

describe("disabling an endpoint that keeps failing", () => {
  it("happens once it has failed without a success for the whole period", () => {
    const failingSince = new Date(at.getTime() - 5 * 86_400_000);
    expect(shouldDisable(failingSince, at, 5)).toBe(true);
    expect(shouldDisable(new Date(failingSince.getTime() + 1), at, 5)).toBe(false);
    expect(shouldDisable(null, at, 5)).toBe(false);
    expect(shouldDisable(failingSince, at, 6)).toBe(false);
  });
});
