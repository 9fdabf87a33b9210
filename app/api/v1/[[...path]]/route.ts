import { ApiError } from "@/lib/api/errors";
import { errorResponse } from "@/lib/api/route";

/** Any path under /api/v1 that no route claims: a JSON 404 in the API's error shape. */
function unknownPath(request: Request): Response {
  const { pathname } = new URL(request.url);
  return errorResponse(new ApiError(404, "not_found", `No such endpoint: ${request.method} ${pathname}.`));
}

export {
  unknownPath as GET,
  unknownPath as POST,
  unknownPath as PUT,
  unknownPath as PATCH,
  unknownPath as DELETE,
};
