import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { createKey, listKeys } from "@/lib/keys/service";
import { CreateKeyRequestSchema } from "@/lib/schemas/keys";

export const GET = authedRoute(async ({ auth }) => json({ keys: await listKeys(auth.accountId) }));

export const POST = authedRoute(async ({ request, auth }) => {
  const body = await parseJsonBody(request, CreateKeyRequestSchema, { fieldCodes: { name: "invalid_name" } });
  return json(await createKey(auth.accountId, body.name), 201);
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
