import "server-only";
import { uncheckedApiClient } from "@/lib/dashboard/api-client/client";
import { DASHBOARD_ACCESS, type Forwarding } from "./access";
import { type BffContext, bffJson, idempotencyHeader, jsonBody, PATH_PARAMETERS, relay } from "./bff";
import { listQuery } from "./list-query";

const METHODS = { GET: "get", POST: "post", PUT: "put", PATCH: "patch", DELETE: "delete" } as const;
type Method = keyof typeof METHODS;
const isMethod = (name: string): name is Method => Object.hasOwn(METHODS, name);

/** A dashboard call that is passed to the API as it is: the API checks its body and answers with its codes. */
type Forwarded = Forwarding & {
  method: Method;
  /** The path under /bff. */
  path: string;
  /** The API path it goes to. */
  to: string;
};

/** Everything the dashboard may ask of the API through /bff without a handler of its own; nothing else passes. */
export const FORWARDED: readonly Forwarded[] = Object.entries(DASHBOARD_ACCESS).flatMap(
  ([operation, access]) => {
    const [method = "", to = ""] = operation.split(" ");
    if (!("forward" in access) || !isMethod(method)) return [];
    return [{ ...access.forward, method, path: access.forward.as ?? to, to }];
  },
);

/** The parameters of `segments` under `pattern`, or undefined when they do not fit it. */
function match(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split("/").filter(Boolean);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] ?? "";
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name === undefined) {
      if (segment !== part) return undefined;
    } else if (PATH_PARAMETERS[name]?.test(segment)) params[name] = segment;
    else return undefined;
  }
  return params;
}

/** The decoded segments after /bff (the request guard has already answered a path that does not decode). */
function segmentsOf(request: Request): string[] {
  const { pathname } = new URL(request.url);
  return pathname
    .replace(/^\/bff\/?/, "")
    .split("/")
    .filter(Boolean)
    .map((segment) => decodeURIComponent(segment));
}

/** The entry's own query parameters present on the request, as they came. */
function passedQuery(request: Request, entry: Forwarded): Record<string, string> {
  const query = new URL(request.url).searchParams;
  return Object.fromEntries(
    (entry.query ?? []).flatMap((name) => {
      const value = query.get(name);
      return value === null ? [] : [[name, value]];
    }),
  );
}

/**
 * Passes an allowlisted dashboard call to the API with the session's key: the body as JSON (bounded, and
 * `invalid_json` when it is not), the Idempotency-Key and the entry's own headers; the answer comes back
 * with its status and the headers `relay` keeps. A path or method not in FORWARDED never reaches the API.
 */
export async function forward({ request, caller }: BffContext): Promise<Response> {
  const segments = segmentsOf(request);
  const candidates = FORWARDED.flatMap((entry) => {
    const params = match(entry.path, segments);
    return params ? [{ entry, params }] : [];
  });
  const found = candidates.find(({ entry }) => entry.method === request.method);
  if (!found) {
    if (candidates.length === 0) {
      return bffJson(
        { error: "not_found", message: `No such endpoint: ${request.method} /bff/${segments.join("/")}.` },
        404,
      );
    }
    const allowed = candidates.map(({ entry }) => entry.method).join(", ");
    const response = bffJson(
      { error: "method_not_allowed", message: `${request.method} is not supported here.` },
      405,
    );
    response.headers.set("allow", allowed);
    return response;
  }
  const { entry, params } = found;
  const headers = idempotencyHeader(request);
  for (const [name, check] of Object.entries(entry.headers ?? {})) {
    const value = request.headers.get(name);
    if (value === null) continue;
    if (!check.schema.safeParse(value).success)
      return bffJson({ error: check.code, message: check.message }, 400);
    headers[name] = value;
  }
  const body = entry.method === "GET" || entry.method === "DELETE" ? undefined : await jsonBody(request);
  const query = { ...(entry.list ? listQuery(request) : {}), ...passedQuery(request, entry) };
  return relay(
    await uncheckedApiClient(caller).request(METHODS[entry.method], entry.to, {
      params: { path: params, ...(Object.keys(query).length > 0 ? { query } : {}) },
      ...(body === undefined ? {} : { body }),
      headers,
    }),
  );
}
