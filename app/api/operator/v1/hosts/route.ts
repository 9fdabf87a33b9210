import { hostViews } from "@/lib/operator/hosts";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";
import { wireHost } from "@/lib/operator/schemas";

export const GET = operatorRoute("read", async ({ request }) => {
  const fresh = new URL(request.url).searchParams.get("fresh") === "1";
  return json({ hosts: (await hostViews({ fresh })).map(wireHost) });
});

export const { POST, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["GET"]);
