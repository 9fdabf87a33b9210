import type { Cycle } from "@/lib/db/types";
import { addMonths } from "../cycle";

/** The pro-rated amount of a resize and what it was worked out from. */
export type ProRata = {
  /** Positive: charged (an upgrade); negative: credited (a downgrade); whole cents. */
  amountCents: number;
  /** The paid time left, in whole seconds. */
  secondsLeft: number;
  /** The length of the period that time is in (a month or a year, as the calendar has it), in seconds. */
  periodSeconds: number;
};

const MONTHS: Record<Cycle, number> = { monthly: 1, annual: 12 };
/** More periods than anyone pays ahead: a bound on the walk back from the expiry. */
const MAX_PERIODS = 1_000;

/**
 * What moving from one price of a cycle to another costs for the paid time left at `at`, per second: the
 * difference of the two prices times the seconds left over the seconds of the period they are in. The paid time
 * is walked back from the expiry one cycle at a time (a server renewed ahead holds several periods, each its own
 * calendar length), so every second is priced at its own period's rate. Rounding is in the service's favour by
 * less than a cent: an upgrade rounds up (it is never free while time is left), a downgrade's credit rounds
 * down; the sign follows the prices alone, never the rounding.
 */
export function proRata(input: {
  oldPriceCents: number;
  newPriceCents: number;
  cycle: Cycle;
  expiresAt: Date;
  at: Date;
}): ProRata {
  const difference = BigInt(input.newPriceCents - input.oldPriceCents);
  // The share of a period left, as an exact fraction: sum of seconds_i / period_i.
  let numerator = 0n;
  let denominator = 1n;
  let secondsLeft = 0;
  let periodSeconds = 0;
  let end = input.expiresAt;
  for (let walked = 0; end.getTime() > input.at.getTime() && walked < MAX_PERIODS; walked++) {
    const start = addMonths(end, -MONTHS[input.cycle]);
    const period = Math.round((end.getTime() - start.getTime()) / 1000);
    const left = Math.floor((end.getTime() - Math.max(start.getTime(), input.at.getTime())) / 1000);
    numerator = numerator * BigInt(period) + BigInt(left) * denominator;
    denominator *= BigInt(period);
    secondsLeft += left;
    // The period `at` falls in is the one whose rate applies first: the one reported.
    periodSeconds = period;
    end = start;
  }
  if (secondsLeft === 0 || difference === 0n) {
    return { amountCents: 0, secondsLeft, periodSeconds: periodSeconds || 1 };
  }
  const magnitude = (difference < 0n ? -difference : difference) * numerator;
  const cents =
    difference > 0n
      ? (magnitude + denominator - 1n) / denominator // up: an upgrade
      : magnitude / denominator; // down: a downgrade's credit
  return {
    amountCents: Number(difference > 0n ? cents : -cents),
    secondsLeft,
    periodSeconds,
  };
}
