import { methodNotAllowed, staticJsonHandler } from "@/lib/api/route";
import { buildOpenApiDocument } from "@/lib/openapi/document";

export const GET = staticJsonHandler(buildOpenApiDocument(), 2);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
