import { methodNotAllowed, staticJsonHandler } from "@/lib/api/route";
import { catalogBody } from "@/lib/catalog/present";

// The catalog is the same for everyone and changes only with a deploy.
export const GET = staticJsonHandler(catalogBody());

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
