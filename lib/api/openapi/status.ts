/** The OpenAPI operation of the public status page's figures. */
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { StatusSchema } from "@/lib/api/schemas/status";
import { DEFAULTS, errorResponse, jsonContent, publicOperation } from "./shared";

export const statusPaths: ZodOpenApiPathsObject = {
  "/status": {
    get: publicOperation({
      tags: ["Service"],
      operationId: "getStatus",
      summary: "The status page's figures",
      description:
        "Public, the same for everyone, and what `/status` draws: from real orders only, per location and image, " +
        "the time from order to active and to SSH answering (p50, p95, p99, with n and the success rate), over " +
        "the last 24 hours and 7 days; per coin the time from a deposit's confirming block (the chain's time of it) " +
        "to its credit; console ticket to first byte; webhook commit to delivery; the state of the hosts " +
        "(counted per location) and of each coin's deposit watcher, with hourly series for charts and, in " +
        "`methods`, how each figure is measured. No account, server, address or amount is in it. Computed at " +
        `most once every \`refresh_seconds\` (${DEFAULTS.STATUS_REFRESH_SECONDS} by default) and served from ` +
        "memory meanwhile: send the `ETag` back in `If-None-Match` and an unchanged document answers 304. " +
        "The operator may switch it off (`STATUS_PAGE=0`): then 404.",
      responses: {
        "200": {
          description:
            "The figures, with `ETag` and `Cache-Control: public, max-age=<seconds until the next>`.",
          headers: {
            ETag: { description: "The document's validator.", schema: { type: "string" } },
          },
          content: jsonContent(StatusSchema),
        },
        "304": { description: "The `If-None-Match` names the current document: keep yours." },
        "404": errorResponse("The operator has switched the status page off.", ["not_found"]),
      },
    }),
  },
};
