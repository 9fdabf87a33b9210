"use client";

import { lazy, Suspense, useMemo, useRef } from "react";
import type { ChartLine } from "../ui/line-chart";
import { useNearScreen, usePageLoaded } from "../ui/use-visible";
import { formatDuration } from "./format";

/**
 * The chart library loads only once the page has loaded and a chart nears the screen: the status page's first
 * load carries its figures as text, not uPlot. React's own `lazy`, as the usage graphs do.
 */
const LineChart = lazy(() => import("../ui/line-chart").then((module) => ({ default: module.LineChart })));

/** The hour that was slowest, and the latest hour measured, in words. */
function summarize(line: ChartLine): string {
  const measured = line.values.filter((value): value is number => value !== null);
  const latest = measured.at(-1);
  if (latest === undefined) return "nothing measured";
  return `${formatDuration(latest)} in the latest hour, ${formatDuration(Math.max(...measured))} at most`;
}

/** One measure's hourly p50 and p95 over the last 7 days, drawn when it nears the screen. */
export function StatusChart(props: {
  id: string;
  title: string;
  hourStarts: number[];
  p50: (number | null)[];
  p95: (number | null)[];
}) {
  const slot = useRef<HTMLDivElement>(null);
  const loaded = usePageLoaded();
  const near = useNearScreen(slot);
  const measured = props.p50.some((value) => value !== null);
  // The same lines on every render: the chart is drawn again only when its data changes.
  const lines = useMemo(
    () => [
      { label: "p50", values: props.p50, color: "#2563eb" },
      { label: "p95", values: props.p95, color: "#d97706" },
    ],
    [props.p50, props.p95],
  );
  return (
    <div ref={slot} className="min-h-8" data-testid={`status-chart-slot-${props.id}`}>
      {!measured ? null : loaded && near ? (
        <Suspense fallback={<p role="status">Loading the chart…</p>}>
          <LineChart
            testId={`status-chart-${props.id}`}
            title={props.title}
            timestamps={props.hourStarts}
            lines={lines}
            format={formatDuration}
            summarize={summarize}
          />
        </Suspense>
      ) : null}
    </div>
  );
}
