/** How the status page writes its figures. Pure. */

/** 850 -> "850 ms", 1234 -> "1.23 s", 65000 -> "65.0 s", 754000 -> "12 min 34 s", 7_500_000 -> "2 h 5 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 10) return `${seconds.toFixed(2)} s`;
  if (seconds < 100) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.round(whole / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A measured time, or a dash when nothing was measured. */
export const durationOrDash = (ms: number | null) => (ms === null ? "—" : formatDuration(ms));

/** 0.98765 -> "98.8 %", 1 -> "100 %", null (nothing ended) -> "—". */
export function formatRate(rate: number | null): string {
  if (rate === null) return "—";
  if (rate === 1) return "100 %";
  return `${(Math.floor(rate * 1000) / 10).toFixed(1)} %`;
}
