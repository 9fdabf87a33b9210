import { notFound } from "@/lib/api/errors";
import { methodNotAllowed, publicRoute, sharedJson } from "@/lib/api/route";
import { statusSettings } from "@/lib/status/config";
import { currentStatus, secondsFresh } from "@/lib/status/document";

// The same for everyone: computed at most once per STATUS_REFRESH_SECONDS, revalidated with its ETag.
export const GET = publicRoute(async ({ request }) => {
  if (!statusSettings().enabled) throw notFound("This service publishes no status page.");
  const document = await currentStatus();
  return sharedJson(request, document.text, document.etag, secondsFresh(document));
});

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
