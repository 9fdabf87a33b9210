import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { presentPtrList } from "@/lib/servers/network/present";
import { listPtrs } from "@/lib/servers/network/rdns";
import { serverReader } from "@/lib/servers/reads";

export const GET = authedRoute("listPtrs", async ({ auth, params }) =>
  json(presentPtrList(await listPtrs(serverReader(auth), pathId(params, "id", "server")))),
);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
