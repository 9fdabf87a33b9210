/** The usage operation of servers, spread into the document's paths. */
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { MetricsQuerySchema, ServerMetricsSchema } from "@/lib/api/schemas/metrics";
import { TRAFFIC_POLICY } from "@/lib/catalog/catalog";
import { serverIdParam, serverNotFound } from "./servers";
import { authed, DEFAULTS, errorResponse, jsonContent } from "./shared";

export const serverMetricsPaths: ZodOpenApiPathsObject = {
  "/servers/{id}/metrics": {
    get: authed("servers:read", {
      tags: ["Servers"],
      operationId: "getServerMetrics",
      summary: "Usage graphs: CPU, memory, network and disk over a period",
      description:
        "Each host is read every `METRICS_INTERVAL_SECONDS` (default " +
        DEFAULTS.METRICS_INTERVAL_SECONDS +
        ") with one `virsh domstats` for all its machines. Readings are kept at three resolutions: 1-minute " +
        "points for 2 hours, 5-minute points for 25 hours and hourly points for 32 days, so `1h` answers 60 " +
        "points, `24h` 288, `7d` 168 and `30d` 720. Rates are averages over the part of each bucket the " +
        "machine was measured (a stopped machine leaves nulls). Network counts the server's card on its " +
        "host's bridge (servers on hosts without a bridge, a test setup, show no network). Memory comes " +
        "from the guest's balloon driver and is null where the guest does not report it. Counters restart " +
        "with each run of the machine (a stop and start, a reinstall): a reading below the last one starts a " +
        "new run, counted from zero, so nothing is counted twice. For simulated servers the series are " +
        "generated and marked `demo`. This period's traffic against the allowance is `traffic` on the " +
        `server (outbound only; past it the network is slowed to ${TRAFFIC_POLICY.slowedMbps} Mbit/s until the next period).`,
      requestParams: { path: serverIdParam, query: MetricsQuerySchema },
      responses: {
        "200": { description: "The usage series.", content: jsonContent(ServerMetricsSchema) },
        "400": errorResponse("`period` is not 1h, 24h, 7d or 30d.", ["invalid_period"]),
        "404": serverNotFound,
      },
    }),
  },
};
