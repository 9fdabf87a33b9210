/**
 * The OpenAPI 3.1 description of API v1, generated from the same zod schemas the routes validate with.
 * Each resource's operations live in their own file here; this one puts them together in the published order.
 * Where the written spec leaves a detail open ("not shown"), the choice made here is the contract.
 */
import { createDocument } from "zod-openapi";
import { accountPaths, accountTag } from "./account";
import { catalogPaths, catalogTag } from "./catalog";
import { consolePaths, consoleTag } from "./console";
import { demoPaths, demoTag } from "./demo";
import { servicePaths, serviceTag } from "./health";
import { API_VERSION_INFO } from "./info";
import { keysPaths, keysTag } from "./keys";
import { serverMetricsPaths } from "./metrics";
import { notificationEvents, notificationsPaths, notificationsTag } from "./notifications";
import { resizePaths } from "./resize";
import { serverMachinePaths } from "./server-machine";
import { serversPaths, serversTag } from "./servers";
import { sessionsPaths, sessionsTag } from "./sessions";
import { snapshotsPaths, snapshotsTag } from "./snapshots";
import { topupsPaths, topupsTag } from "./topups";

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
            "`Authorization: Bearer vpsk_...`. Keys never expire and carry the account's full rights.",
        },
      },
    },
    paths: {
      ...accountPaths,
      ...sessionsPaths,
      ...keysPaths,
      ...topupsPaths,
      ...serversPaths,
      ...serverMachinePaths,
      ...resizePaths,
      ...snapshotsPaths,
      ...serverMetricsPaths,
      ...consolePaths,
      ...notificationsPaths,
      ...demoPaths,
      ...catalogPaths,
      ...servicePaths,
    },
    webhooks: notificationEvents,
  });
}
