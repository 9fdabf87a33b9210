import type { Cycle } from "@/lib/catalog/catalog";

/**
 * `from` moved by `months` calendar months (negative: back): the same day and time, clamped to the month's last
 * day (31 Jan + 1 month = 28/29 Feb), as billing systems do.
 */
export function addMonths(from: Date, months: number): Date {
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

/** One billing cycle after `from`: one calendar month (or year) later (see addMonths). */
export function addCycle(from: Date, cycle: Cycle): Date {
  return addMonths(from, cycle === "annual" ? 12 : 1);
}
