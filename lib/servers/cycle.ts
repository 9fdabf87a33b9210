import type { Cycle } from "@/lib/catalog/catalog";

/**
 * One billing cycle after `from`: the same day and time one calendar month (or year) later, clamped to the
 * month's last day (31 Jan + 1 month = 28/29 Feb), as billing systems do.
 */
export function addCycle(from: Date, cycle: Cycle): Date {
  const months = cycle === "annual" ? 12 : 1;
  const year = from.getUTCFullYear();
  const month = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(from.getUTCDate(), lastDay),
      from.getUTCHours(),
      from.getUTCMinutes(),
      from.getUTCSeconds(),
      from.getUTCMilliseconds(),
    ),
  );
}
