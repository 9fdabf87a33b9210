import { badRequest } from "@/lib/api/errors";
import { searchAccounts } from "@/lib/operator/accounts";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";

export const GET = operatorRoute("read", async ({ request }) => {
  const q = new URL(request.url).searchParams.get("q") ?? "";
  if (q.length > 200) throw badRequest("invalid_request", "Send q of at most 200 characters.");
  return json({ hits: await searchAccounts(q) });
});

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
