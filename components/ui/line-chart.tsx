"use client";

import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export type ChartLine = { label: string; values: (number | null)[]; color: string };
export type LineChartProps = {
  /** The figure's test id. */
  testId: string;
  title: string;
  /** Unix seconds, one per point. */
  timestamps: number[];
  lines: ChartLine[];
  format: (value: number) => string;
  /** A line's figures in words, for the caption (what the canvas shows, for screen readers and copying). */
  summarize: (line: ChartLine) => string;
};

const HEIGHT = 160;
/** Readable on light and dark backgrounds alike. */
const AXIS = "#71717a";

/** One graph over time: uPlot on a canvas, with a caption that says its figures in words. */
export function LineChart({ testId, title, timestamps, lines, format, summarize }: LineChartProps) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const axis = { stroke: AXIS, grid: { stroke: "rgba(113,113,122,0.2)" }, ticks: { stroke: AXIS } };
    const plot = new uPlot(
      {
        width: element.clientWidth || 600,
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [axis, { ...axis, size: 84, values: (_u, ticks) => ticks.map(format) }],
        series: [{}, ...lines.map((line) => ({ label: line.label, stroke: line.color, width: 1.5 }))],
      },
      [timestamps, ...lines.map((line) => line.values)] as uPlot.AlignedData,
      element,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [timestamps, lines, format]);
  const points = lines[0]?.values.filter((value) => value !== null).length ?? 0;
  return (
    <figure className="space-y-1" data-testid={testId} data-points={points}>
      <figcaption className="text-sm">
        <span className="font-medium">{title}</span>
        {lines.map((line) => (
          <span key={line.label} className="ml-3">
            <span aria-hidden="true" style={{ color: line.color }}>
              ■{" "}
            </span>
            {line.label}: {summarize(line)}
          </span>
        ))}
      </figcaption>
      <div ref={container} role="img" aria-label={`${title} graph`} className="w-full" />
    </figure>
  );
}
