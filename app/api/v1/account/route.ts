import { createAccount, getAccount } from "@/lib/accounts/service";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { consume, limiters } from "@/lib/rate-limit/limits";
import { EmptyBodySchema } from "@/lib/schemas/common";

export const POST = publicRoute(async ({ request, client }) => {
  await parseJsonBody(request, EmptyBodySchema);
  const rateHeaders = consume(limiters().accountCreate, client);
  return json(await createAccount(), 201, rateHeaders);
});

export const GET = authedRoute(async ({ auth }) => json(getAccount(auth)));

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
