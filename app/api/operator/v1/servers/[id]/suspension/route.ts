import { parseJsonBody } from "@/lib/api/body";
import { json, operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";
import { LiftBody, SuspendBody } from "@/lib/operator/schemas";
import { liftServer, suspendServer } from "@/lib/operator/suspensions";
import { serverSettings } from "@/lib/servers/config";
import { presentServer } from "@/lib/servers/present";
import { provisioner } from "@/lib/servers/provisioner";

const asOwnerSeesIt = (row: Parameters<typeof presentServer>[0]) =>
  presentServer(row, serverSettings().graceDays, provisioner().name);

export const POST = operatorRoute("suspend", async (context) => {
  const serverId = operatorPathId(context);
  const body = await parseJsonBody(context.request, SuspendBody);
  const row = await suspendServer(context.operator, serverId, {
    reason: body.reason,
    pausesPeriod: body.pause_period,
  });
  return json(asOwnerSeesIt(row));
});

export const DELETE = operatorRoute("suspend", async (context) => {
  const serverId = operatorPathId(context);
  const body = await parseJsonBody(context.request, LiftBody);
  return json(asOwnerSeesIt(await liftServer(context.operator, serverId, body.reason)));
});

export const { GET, PUT, PATCH } = operatorMethodNotAllowed(["POST", "DELETE"]);
