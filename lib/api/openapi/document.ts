/**
 * The OpenAPI 3.1 description of API v1, generated from the same zod schemas the routes validate with.
 * Each resource's operations live in their own file here; this one puts them together in the published order.
 * Where the written spec leaves a detail open ("not shown"), the choice made here is the contract.
 */
import { createDocument } from "zod-openapi";
import { SCOPES } from "@/lib/api/scopes";
import { accountTag } from "./account";
import { catalogTag } from "./catalog";
import { consoleTag } from "./console";
import { demoTag } from "./demo";
import { serviceTag } from "./health";
import { API_VERSION_INFO } from "./info";
import { keysTag } from "./keys";
import { networkTag } from "./network";
import { notificationEvents, notificationsTag } from "./notifications";
import { API_PATHS } from "./operations";
import { serversTag } from "./servers";
import { sessionsTag } from "./sessions";
import { snapshotsTag } from "./snapshots";
import { topupsTag } from "./topups";

/** Each scope and what it allows, for the security scheme's description. */
const SCOPE_LIST = Object.entries(SCOPES)
  .map(([scope, facts]) => `\`${scope}\` (${facts.summary.toLowerCase()})`)
  .join("; ");

export function buildOpenApiDocument() {
  return createDocument({
    openapi: "3.1.0",
    info: API_VERSION_INFO,
    servers: [{ url: "/api/v1", description: "This deployment" }],
    tags: [
      accountTag,
      keysTag,
      sessionsTag,
      catalogTag,
      topupsTag,
      serversTag,
      snapshotsTag,
      networkTag,
      consoleTag,
      notificationsTag,
      demoTag,
      serviceTag,
    ],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "`Authorization: Bearer vpsk_...`. Each operation names the one scope it needs (`x-scope`, also the " +
            "role in its security requirement): " +
            SCOPE_LIST +
            ". A key may also carry an expiry, client networks, a list of servers and a spend cap; keys made " +
            "without scopes, and dashboard sessions, hold every scope.",
        },
      },
    },
    paths: API_PATHS,
    webhooks: notificationEvents,
  });
}
