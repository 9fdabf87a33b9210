import { methodNotAllowed, staticJsonHandler } from "@/lib/api/route";
import { buildOperatorOpenApiDocument } from "@/lib/operator/openapi";

/** The operator API's document: public like the API's own (it describes routes, it holds no data). */
export const GET = staticJsonHandler(buildOperatorOpenApiDocument(), 2);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
