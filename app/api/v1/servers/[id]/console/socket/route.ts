import { ApiError } from "@/lib/api/errors";
import { errorResponse, methodNotAllowed } from "@/lib/api/route";

/**
 * The console's WebSocket endpoint is served by the app's own HTTP server (scripts/server.mjs), which takes
 * the upgrade before Next routes anything. A request reaching this route did not ask to upgrade.
 */
export const GET = () =>
  errorResponse(
    new ApiError(
      426,
      "upgrade_required",
      "This is a WebSocket endpoint: connect with Upgrade: websocket and the ticket from POST /servers/{id}/console.",
      {},
      { Upgrade: "websocket" },
    ),
  );

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
