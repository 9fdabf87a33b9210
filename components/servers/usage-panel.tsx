"use client";

import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useRef, useState } from "react";
import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { METRIC_PERIODS, type MetricPeriod, serverMetricsQuery } from "@/lib/dashboard/queries/servers";
import type { Server } from "@/lib/dashboard/queries/types";
import { Alert, TEXT_STYLES } from "../ui/alert";
import { Button } from "../ui/button";
import { Panel } from "../ui/panel";
import { useNearScreen, usePageLoaded } from "../ui/use-visible";
import { TrafficBar } from "./traffic-panel";

/**
 * The chart library loads only here, once the page has loaded and the graphs near the screen: it is in no page's
 * first load.
 * React's own `lazy` (not next/dynamic, whose loader adds 2 kB to the page): it renders only in the browser,
 * once the metrics have come.
 */
const UsageCharts = lazy(() => import("./usage-charts"));

const PERIOD_NAMES: Record<MetricPeriod, string> = {
  "1h": "1 hour",
  "24h": "24 hours",
  "7d": "7 days",
  "30d": "30 days",
};

/** This period's traffic against the allowance, and graphs of CPU, memory, network and disk over a chosen period. */
export function UsagePanel({ server }: { server: Server }) {
  const [period, setPeriod] = useState<MetricPeriod>("24h");
  const loaded = usePageLoaded();
  const graphs = useRef<HTMLFieldSetElement>(null);
  const near = useNearScreen(graphs);
  const { data, error } = useQuery({ ...serverMetricsQuery(server.id, period), enabled: loaded && near });
  const measured = data?.series.cpu_percent.some((value) => value !== null) ?? false;
  return (
    <Panel id="usage" title="Usage">
      {server.traffic && <TrafficBar traffic={server.traffic} />}
      <fieldset ref={graphs} className="flex flex-wrap items-center gap-2">
        <legend className="sr-only">Period of the graphs</legend>
        {METRIC_PERIODS.map((choice) => (
          <Button
            key={choice}
            aria-pressed={choice === period}
            className={choice === period ? "font-semibold" : undefined}
            onClick={() => setPeriod(choice)}
          >
            {PERIOD_NAMES[choice]}
          </Button>
        ))}
      </fieldset>
      {data?.demo && (
        <p className={`text-sm ${TEXT_STYLES.muted}`} data-testid="usage-demo">
          Demo series: generated for this simulated server; no machine was read.
        </p>
      )}
      {error && <Alert>{errorMessage(error)}</Alert>}
      {data && data.period === period && measured && (
        <Suspense fallback={<p role="status">Loading the graphs…</p>}>
          <UsageCharts metrics={data} />
        </Suspense>
      )}
      {data && !measured && (
        <p className={`text-sm ${TEXT_STYLES.muted}`} data-testid="usage-empty">
          Nothing measured in the last {PERIOD_NAMES[period]} yet: the first readings appear within a few
          minutes of the server running.
        </p>
      )}
    </Panel>
  );
}
