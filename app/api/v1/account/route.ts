import { createAccount, getAccount } from "@/lib/accounts/account";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { EmptyBody } from "@/lib/api/schemas/common";
import { limiters, withQuota } from "@/lib/rate-limit/limits";

export const POST = publicRoute(async ({ request, client }) => {
  await parseJsonBody(request, EmptyBody);
  const { result, headers } = await withQuota(limiters().accountCreate, client, createAccount);
  return json(result, 201, headers);
});

export const GET = authedRoute("getAccount", async ({ auth }) => json(getAccount(auth)));

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
