import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { SetPtrBody } from "@/lib/api/schemas/network";
import { presentPtr } from "@/lib/servers/network/present";
import { deletePtr, getPtr, setPtr } from "@/lib/servers/network/rdns";
import { serverReader } from "@/lib/servers/reads";

/** The address as written in the path (colons may arrive percent-encoded); a malformed escape stays as it is. */
function addressOf(params: Record<string, string | string[] | undefined>): string {
  const raw = String(params.address ?? "");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export const GET = authedRoute("getPtr", async ({ auth, params }) =>
  json(presentPtr(await getPtr(serverReader(auth), pathId(params, "id", "server"), addressOf(params)))),
);

export const PUT = authedRoute("setPtr", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const body = await parseJsonBody(request, SetPtrBody);
  return json(presentPtr(await setPtr(auth.accountId, serverId, addressOf(params), body.name)));
});

export const DELETE = authedRoute("deletePtr", async ({ auth, params }) =>
  json(presentPtr(await deletePtr(auth.accountId, pathId(params, "id", "server"), addressOf(params)))),
);

export const { POST, PATCH } = methodNotAllowed(["GET", "PUT", "DELETE"]);
