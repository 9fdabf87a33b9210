/** How usage figures read on the dashboard: decimal units, as traffic allowances are sold. Pure. */

const scaled = (value: number, units: string[], base: number) => {
  let index = 0;
  let scaledValue = value;
  while (Math.abs(scaledValue) >= base && index < units.length - 1) {
    scaledValue /= base;
    index++;
  }
  const digits = scaledValue >= 100 || index === 0 ? 0 : scaledValue >= 10 ? 1 : 2;
  return `${scaledValue.toFixed(digits)} ${units[index]}`;
};

/** 1234567 -> "1.23 MB" (1 kB = 1000 bytes). */
export const formatBytes = (bytes: number) => scaled(bytes, ["B", "kB", "MB", "GB", "TB", "PB"], 1000);

/** Bytes per second as bits per second: 1250000 -> "10.0 Mbit/s". */
export const formatBitRate = (bytesPerSecond: number) =>
  scaled(bytesPerSecond * 8, ["bit/s", "kbit/s", "Mbit/s", "Gbit/s"], 1000);

/** 12.345 -> "12.3 %". */
export const formatPercent = (percent: number) => `${percent.toFixed(1)} %`;

/** The last value that is not null, and the largest; undefined when there is none. */
export function latestAndPeak(values: (number | null)[]): { latest: number; peak: number } | undefined {
  const measured = values.filter((value): value is number => value !== null);
  const latest = measured.at(-1);
  return latest === undefined ? undefined : { latest, peak: Math.max(...measured) };
}
