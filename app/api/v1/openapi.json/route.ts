import { buildOpenApiDocument } from "@/lib/api/openapi/document";
import { methodNotAllowed, staticJsonHandler } from "@/lib/api/route";

export const GET = staticJsonHandler(buildOpenApiDocument(), 2);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
