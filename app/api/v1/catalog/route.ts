import { methodNotAllowed } from "@/lib/api/route";
import { catalogBody } from "@/lib/catalog/present";

// The catalog is the same for everyone and changes only with a deploy: serialise it once per process.
const CATALOG_JSON = JSON.stringify(catalogBody());

export function GET(): Response {
  return new Response(CATALOG_JSON, {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
