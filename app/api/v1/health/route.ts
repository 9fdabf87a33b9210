import { json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { health } from "@/lib/health/health";

export const GET = publicRoute(async () => {
  const body = await health();
  return json(body, body.status === "ok" ? 200 : 503);
});

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
