"use client";

import { useEffect, useMemo, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ServerMetrics } from "@/lib/dashboard/queries/types";
import { formatBitRate, formatBytes, formatPercent, latestAndPeak } from "./usage-format";

type Line = { label: string; values: (number | null)[]; color: string };
type ChartProps = {
  id: string;
  title: string;
  timestamps: number[];
  lines: Line[];
  format: (value: number) => string;
};

const HEIGHT = 160;
/** Readable on light and dark backgrounds alike. */
const AXIS = "#71717a";

/** One graph: uPlot on a canvas, with a caption that says the latest and peak values in words. */
function Chart({ id, title, timestamps, lines, format }: ChartProps) {
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
    <figure className="space-y-1" data-testid={`usage-chart-${id}`} data-points={points}>
      <figcaption className="text-sm">
        <span className="font-medium">{title}</span>
        {lines.map((line) => {
          const figures = latestAndPeak(line.values);
          return (
            <span key={line.label} className="ml-3">
              <span aria-hidden="true" style={{ color: line.color }}>
                ■{" "}
              </span>
              {line.label}: {figures ? `${format(figures.latest)} now, peak ${format(figures.peak)}` : "—"}
            </span>
          );
        })}
      </figcaption>
      <div ref={container} role="img" aria-label={`${title} graph`} className="w-full" />
    </figure>
  );
}

const bytesPerSecond = (value: number) => `${formatBytes(value)}/s`;

/** The server page's graphs over one period (loaded on demand: see UsagePanel). */
export default function UsageCharts({ metrics }: { metrics: ServerMetrics }) {
  // Built once per answer: a chart is drawn again only when its data changed.
  const charts = useMemo(() => {
    const { series } = metrics;
    const memory = series.memory_used_bytes.some((value) => value !== null);
    const all: Omit<ChartProps, "timestamps">[] = [
      {
        id: "cpu",
        title: "CPU",
        lines: [{ label: "used", values: series.cpu_percent, color: "#2563eb" }],
        format: formatPercent,
      },
      {
        id: "memory",
        title: "Memory",
        lines: [{ label: "in use", values: series.memory_used_bytes, color: "#7c3aed" }],
        format: formatBytes,
      },
      {
        id: "network",
        title: "Network",
        lines: [
          { label: "in", values: series.network_in_bytes_per_second, color: "#059669" },
          { label: "out", values: series.network_out_bytes_per_second, color: "#d97706" },
        ],
        format: formatBitRate,
      },
      {
        id: "disk",
        title: "Disk",
        lines: [
          { label: "read", values: series.disk_read_bytes_per_second, color: "#0891b2" },
          { label: "write", values: series.disk_write_bytes_per_second, color: "#db2777" },
        ],
        format: bytesPerSecond,
      },
    ];
    // Memory only where the guest reports it.
    return all.filter((chart) => chart.id !== "memory" || memory);
  }, [metrics]);
  return (
    <div className="space-y-6">
      {charts.map((chart) => (
        <Chart key={chart.id} timestamps={metrics.timestamps} {...chart} />
      ))}
    </div>
  );
}
