import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { getTopup } from "@/lib/topups/reads";

export const GET = authedRoute("getTopup", async ({ auth, params }) =>
  json(await getTopup(auth.accountId, String(params.ref))),
);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
