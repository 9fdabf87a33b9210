import { methodNotAllowed, publicRoute, sharedJson } from "@/lib/api/route";
import { catalogDocument } from "@/lib/catalog/document";

// The same for everyone: 304 to a client that holds it (If-None-Match), else the text serialised once.
export const GET = publicRoute(({ request }) => {
  const { text, etag } = catalogDocument();
  return sharedJson(request, text, etag, 60);
});

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
