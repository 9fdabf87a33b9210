import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { SimulationBody } from "@/lib/api/schemas/network";
import { simulateFirewall } from "@/lib/servers/network/firewall";
import { presentSimulation } from "@/lib/servers/network/present";

export const POST = authedRoute("simulateFirewall", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const body = await parseJsonBody(request, SimulationBody);
  return json(presentSimulation(await simulateFirewall(auth.accountId, serverId, body)));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
