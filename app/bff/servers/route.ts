import { bffJson, bffRoute, idempotencyHeader, jsonBody, relay } from "@/lib/dashboard/bff/bff";
import { forward } from "@/lib/dashboard/bff/forward";

/** The list, as FORWARDED passes it (this folder's own route takes /bff/servers from the catch-all). */
export const GET = bffRoute(forward, { signedIn: true });

/** Orders a server. The API validates the body; the browser's Idempotency-Key makes a double submit harmless. */
export const POST = bffRoute(
  async ({ request, api }) => {
    const body = await jsonBody(request);
    if (typeof body !== "object" || body === null) {
      return bffJson({ error: "invalid_body", message: "Send the order as a JSON object." }, 400);
    }
    const ordered = await api.POST("/servers", {
      // The API checks every field and answers with its own codes; the BFF does not second-guess it.
      body: body as never,
      headers: idempotencyHeader(request),
    });
    // A generated root password is not handed to the page here: the server page reveals it on request only.
    if (ordered.data) delete ordered.data.root_password;
    return relay(ordered);
  },
  { signedIn: true },
);
