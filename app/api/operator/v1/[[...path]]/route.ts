import { errorResponse } from "@/lib/api/route";
import { noSuchEndpoint } from "@/lib/operator/errors";

/** Any path under /api/operator/v1 that no route claims: the same JSON 404 as for a stranger on one that does. */
function unknownPath(request: Request): Response {
  return errorResponse(noSuchEndpoint(request));
}

export {
  unknownPath as GET,
  unknownPath as POST,
  unknownPath as PUT,
  unknownPath as PATCH,
  unknownPath as DELETE,
};
