/** The OpenAPI operations of the service itself: health and this document (the status page's: ./status.ts). */
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { HealthSchema } from "@/lib/api/schemas/health";
import { jsonContent, publicOperation } from "./shared";
export const serviceTag = {
  name: "Service",
  description: "Health, the public status page's figures and this document.",
};

export const servicePaths: ZodOpenApiPathsObject = {
  "/health": {
    get: publicOperation({
      tags: ["Service"],
      operationId: "getHealth",
      summary: "Service health",
      description:
        "Public. 200 when the service and its database answer; 503 with the same body when not. " +
        "`watchers` shows the state of each deposit watcher's node (reachable, tip, cursor, lag, and what is " +
        "wrong in plain words; never the node's address or its raw errors) and of its push, the node's " +
        "notice of each block, where one is configured; a coin whose node is " +
        "unreachable answers `coin_unavailable` to new top-ups until it is back.",
      responses: {
        "200": { description: "Healthy.", content: jsonContent(HealthSchema) },
        "503": { description: "The database is unreachable.", content: jsonContent(HealthSchema) },
      },
    }),
  },
  "/openapi.json": {
    get: publicOperation({
      tags: ["Service"],
      operationId: "getOpenApi",
      summary: "This OpenAPI 3.1 document",
      responses: {
        "200": {
          description: "The document.",
          content: { "application/json": { schema: z.object({}) } },
        },
      },
    }),
  },
};
