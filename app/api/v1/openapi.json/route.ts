import { methodNotAllowed } from "@/lib/api/route";
import { buildOpenApiDocument } from "@/lib/openapi/document";

const DOCUMENT_JSON = JSON.stringify(buildOpenApiDocument(), null, 2);

export function GET(): Response {
  return new Response(DOCUMENT_JSON, {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
