import "server-only";
import { processWide } from "@/lib/util/process-wide";

/**
 * The service's clock for business time (top-up expiry, late-payment windows, and later server expiry).
 * Tests move it forward through the demo-only clock endpoint when ENABLE_TEST_CLOCK is set; otherwise it
 * is the system clock. x402 validity windows stay on real time: the chain judges them by its own clock.
 */
const offset = () => processWide("clock.offset", () => ({ ms: 0 }));

export function now(): Date {
  return new Date(Date.now() + offset().ms);
}

export function advanceClock(seconds: number): Date {
  offset().ms += seconds * 1000;
  return now();
}
