"use client";

import { useMemo } from "react";
import type { ServerMetrics } from "@/lib/dashboard/queries/types";
import { type ChartLine, LineChart, type LineChartProps } from "../ui/line-chart";
import { formatBitRate, formatBytes, formatPercent, latestAndPeak } from "./usage-format";

type ChartProps = Omit<LineChartProps, "testId" | "timestamps" | "summarize"> & { id: string };

/** The latest and the peak value in words: "12.3 % now, peak 40.1 %". */
const nowAndPeak = (format: (value: number) => string) => (line: ChartLine) => {
  const figures = latestAndPeak(line.values);
  return figures ? `${format(figures.latest)} now, peak ${format(figures.peak)}` : "—";
};

const bytesPerSecond = (value: number) => `${formatBytes(value)}/s`;

/** The server page's graphs over one period (loaded on demand: see UsagePanel). */
export default function UsageCharts({ metrics }: { metrics: ServerMetrics }) {
  // Built once per answer: a chart is drawn again only when its data changed.
  const charts = useMemo(() => {
    const { series } = metrics;
    const memory = series.memory_used_bytes.some((value) => value !== null);
    const all: ChartProps[] = [
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
        <LineChart
          key={chart.id}
          testId={`usage-chart-${chart.id}`}
          timestamps={metrics.timestamps}
          summarize={nowAndPeak(chart.format)}
          {...chart}
        />
      ))}
    </div>
  );
}
