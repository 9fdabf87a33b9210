import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { getServerMetrics, metricPeriod } from "@/lib/servers/metrics/read";
import { serverReader } from "@/lib/servers/reads";

export const GET = authedRoute("getServerMetrics", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const period = metricPeriod(new URL(request.url).searchParams.get("period"));
  return json(await getServerMetrics(serverReader(auth), serverId, period));
});

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
