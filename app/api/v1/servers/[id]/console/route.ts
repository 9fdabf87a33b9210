import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { config } from "@/lib/config/env";
import { requestOrigin } from "@/lib/http/origin";
import { closeServerConsoles } from "@/lib/servers/console/closing";
import { issueConsoleTicket } from "@/lib/servers/console/tickets";

/** A single-use ticket for the server's console and the WebSocket URL to present it at. */
export const POST = authedRoute("openServerConsole", async ({ request, auth, params, client }) => {
  const { publicBaseUrl, port } = config();
  const publicOrigin = publicBaseUrl
    ? new URL(publicBaseUrl).origin
    : (requestOrigin(request) ?? `http://127.0.0.1:${port}`);
  const ticket = await issueConsoleTicket(auth.accountId, pathId(params, "id", "server"), {
    client,
    publicOrigin,
    keyId: auth.keyId,
  });
  // The ticket is a credential for 30 seconds: no cache may keep it.
  return json(ticket, 201, { "cache-control": "no-store", pragma: "no-cache" });
});

/** Closes every console of the server this account has open, on every instance. */
export const DELETE = authedRoute("closeServerConsoles", async ({ auth, params }) =>
  json(await closeServerConsoles(auth.accountId, pathId(params, "id", "server"))),
);

export const { GET, PUT, PATCH } = methodNotAllowed(["POST", "DELETE"]);
