import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { SetFirewallBody } from "@/lib/api/schemas/network";
import { getFirewall, setFirewallRules } from "@/lib/servers/network/firewall";
import { presentFirewall } from "@/lib/servers/network/present";
import { serverReader } from "@/lib/servers/reads";

export const GET = authedRoute("getFirewall", async ({ auth, params }) =>
  json(presentFirewall(await getFirewall(serverReader(auth), pathId(params, "id", "server")))),
);

export const PUT = authedRoute("setFirewall", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const body = await parseJsonBody(request, SetFirewallBody);
  return json(presentFirewall(await setFirewallRules(auth.accountId, serverId, body.rules)));
});

export const { POST, PATCH, DELETE } = methodNotAllowed(["GET", "PUT"]);
