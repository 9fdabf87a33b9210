/**
 * Every operation of API v1, as declared in this folder, and what a request to one needs: the scope its
 * `x-scope` names (null: an operation that takes no key) and, for an operation on one server, the path
 * parameter that names it. The routes enforce this (lib/api/route.ts), so what the document says is what
 * the service does; a caller other than a route (another front door over the same keys) does the same with
 * lib/api/authorize.ts.
 */
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from "zod-openapi";
import type { OperationScope } from "@/lib/api/scopes";
import { accountPaths } from "./account";
import { catalogPaths } from "./catalog";
import { consolePaths } from "./console";
import { demoPaths } from "./demo";
import { servicePaths } from "./health";
import { keysPaths } from "./keys";
import { serverMetricsPaths } from "./metrics";
import { networkPaths } from "./network";
import { notificationsPaths } from "./notifications";
import { resizePaths } from "./resize";
import { serverMachinePaths } from "./server-machine";
import { serversPaths } from "./servers";
import { sessionsPaths } from "./sessions";
import { snapshotsPaths } from "./snapshots";
import { statusPaths } from "./status";
import { topupsPaths } from "./topups";

/** Every path of the API, in the order the document publishes them. */
export const API_PATHS: ZodOpenApiPathsObject = {
  ...accountPaths,
  ...sessionsPaths,
  ...keysPaths,
  ...topupsPaths,
  ...serversPaths,
  ...serverMachinePaths,
  ...resizePaths,
  ...snapshotsPaths,
  ...networkPaths,
  ...serverMetricsPaths,
  ...consolePaths,
  ...notificationsPaths,
  ...demoPaths,
  ...catalogPaths,
  ...servicePaths,
  ...statusPaths,
};

export type DeclaredOperation = {
  id: string;
  method: string;
  path: string;
  /** The scope a key needs; null when the operation takes no key. */
  scope: OperationScope | null;
  /** The path parameter naming the one server the operation acts on, if it acts on one. */
  serverParam: string | undefined;
};

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

type Declared = ZodOpenApiOperationObject & { "x-scope"?: OperationScope };

function collect(): Map<string, DeclaredOperation> {
  const operations = new Map<string, DeclaredOperation>();
  for (const [path, item] of Object.entries(API_PATHS)) {
    for (const method of METHODS) {
      const operation = item?.[method] as Declared | undefined;
      if (!operation?.operationId) continue;
      operations.set(operation.operationId, {
        id: operation.operationId,
        method: method.toUpperCase(),
        path,
        scope: operation["x-scope"] ?? null,
        serverParam: /^\/servers\/\{(\w+)\}/.exec(path)?.[1],
      });
    }
  }
  return operations;
}

/** The operations by id. */
export const OPERATIONS: ReadonlyMap<string, DeclaredOperation> = collect();

/** The operation `id` declares; an id no operation has is a mistake in the code that names it. */
export function declaredOperation(id: string): DeclaredOperation {
  const operation = OPERATIONS.get(id);
  if (!operation) throw new Error(`no API operation has the id ${id}`);
  return operation;
}
