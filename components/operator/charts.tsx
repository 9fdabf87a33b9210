/**
 * Small charts drawn on the server as SVG or plain CSS: nothing to load in the browser, readable without
 * scripts, each with its numbers in text for screen readers and for copying.
 */

const PALETTE = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#4b5563", "#db2777"];

/** Stacked bars: one per day, one colour per coin, with a legend. */
export function MoneyChart(props: {
  days: { day: string; coins: Record<string, number>; total_usd: number }[];
  coins: string[];
}) {
  const width = 600;
  const height = 140;
  const max = Math.max(1, ...props.days.map((day) => day.total_usd));
  const barWidth = width / Math.max(1, props.days.length);
  const total = props.days.reduce((sum, day) => sum + day.total_usd, 0);
  return (
    <figure className="space-y-2">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Money in over ${props.days.length} days: ${total.toFixed(2)} USD`}
        className="h-36 w-full rounded border border-zinc-200 dark:border-zinc-800"
      >
        {props.days.map((day, i) => {
          let y = height;
          return (
            <g key={day.day}>
              <title>{`${day.day}: ${day.total_usd.toFixed(2)} USD`}</title>
              {props.coins.map((coin, c) => {
                const value = day.coins[coin] ?? 0;
                const h = (value / max) * (height - 10);
                y -= h;
                return value > 0 ? (
                  <rect
                    key={coin}
                    x={i * barWidth + 1}
                    y={y}
                    width={Math.max(1, barWidth - 2)}
                    height={h}
                    fill={PALETTE[c % PALETTE.length]}
                  />
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption className="flex flex-wrap gap-3 text-xs">
        {props.coins.length === 0 && <span>No money in yet.</span>}
        {props.coins.map((coin, c) => (
          <span key={coin} className="flex items-center gap-1">
            <span className="inline-block h-3 w-3" style={{ background: PALETTE[c % PALETTE.length] }} />
            {coin}: {props.days.reduce((sum, day) => sum + (day.coins[coin] ?? 0), 0).toFixed(2)} USD
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** A horizontal bar of `part` in `whole`, with its text; red from 90 %. */
export function UsageBar(props: {
  label: string;
  part: number;
  whole: number;
  unit: string;
  testId?: string;
}) {
  const share = props.whole > 0 ? Math.min(1, Math.max(0, props.part / props.whole)) : 0;
  return (
    <div className="text-xs">
      <div className="flex justify-between">
        <span>{props.label}</span>
        <span data-testid={props.testId}>
          {props.part} / {props.whole} {props.unit}
        </span>
      </div>
      <div className="h-2 w-full rounded bg-zinc-200 dark:bg-zinc-800" aria-hidden="true">
        <div
          className={`h-2 rounded ${share >= 0.9 ? "bg-red-600" : "bg-sky-600"}`}
          style={{ width: `${Math.round(share * 100)}%` }}
        />
      </div>
    </div>
  );
}

/** Counts as bars side by side (servers by status). */
export function CountBars(props: { counts: Record<string, number>; label: string }) {
  const entries = Object.entries(props.counts).sort(([a], [b]) => a.localeCompare(b));
  const max = Math.max(1, ...entries.map(([, n]) => n));
  return (
    <ul aria-label={props.label} className="space-y-1 text-sm">
      {entries.length === 0 && <li>None yet.</li>}
      {entries.map(([name, n]) => (
        <li key={name} className="flex items-center gap-2">
          <span className="w-28">{name}</span>
          <span className="inline-block h-3 rounded bg-zinc-500" style={{ width: `${(n / max) * 10}rem` }} />
          <span data-testid={`count-${name}`}>{n}</span>
        </li>
      ))}
    </ul>
  );
}
