import "server-only";
import { z } from "zod";
import { type BffContext, bffJson, idempotencyHeader, jsonBody, PATH_PARAMETERS, relay } from "./bff";
import { listQuery } from "./list-query";

type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** A dashboard call that is passed to the API as it is: the API checks its body and answers with its codes. */
type Forwarded = {
  method: Method;
  /** The path under /bff; `{id}`, `{snapshotId}` and `{deliveryId}` are numeric ids, `{ref}` a top-up reference. */
  path: string;
  /** The API path it goes to, when it differs. */
  to?: string;
  /** Passes the list's `limit` and `cursor` on. */
  list?: boolean;
  /** Query parameters passed on as they came (the API checks them). */
  query?: readonly string[];
  /** Request headers passed on besides Idempotency-Key, each checked before it leaves (else a 400 `code`). */
  headers?: Record<string, { schema: z.ZodType<string>; code: string; message: string }>;
};

/** base64 of the x402 payload, as the wallet path sends it back; the API checks what it says. */
const PAYMENT_HEADER = {
  schema: z
    .string()
    .max(8192)
    .regex(/^[A-Za-z0-9+/=]+$/),
  code: "invalid_payment",
  message: "X-PAYMENT is not a base64 payment.",
};

/** Everything the dashboard may ask of the API through /bff without a handler of its own; nothing else passes. */
export const FORWARDED: readonly Forwarded[] = [
  { method: "GET", path: "/account" },
  { method: "GET", path: "/keys" },
  { method: "POST", path: "/keys" },
  { method: "DELETE", path: "/keys/{id}" },
  { method: "GET", path: "/sessions" },
  { method: "DELETE", path: "/sessions/{id}" },
  { method: "GET", path: "/servers", list: true },
  { method: "GET", path: "/servers/{id}" },
  { method: "PATCH", path: "/servers/{id}" },
  { method: "DELETE", path: "/servers/{id}" },
  { method: "GET", path: "/servers/{id}/credentials" },
  { method: "POST", path: "/servers/{id}/actions" },
  { method: "POST", path: "/servers/{id}/renew" },
  { method: "POST", path: "/servers/{id}/password" },
  { method: "GET", path: "/servers/{id}/snapshots" },
  { method: "POST", path: "/servers/{id}/snapshots" },
  { method: "DELETE", path: "/servers/{id}/snapshots/{snapshotId}" },
  { method: "POST", path: "/servers/{id}/snapshots/{snapshotId}/restore" },
  { method: "DELETE", path: "/servers/{id}/rescue" },
  { method: "GET", path: "/servers/{id}/metrics", query: ["period"] },
  { method: "POST", path: "/servers/{id}/console" },
  { method: "GET", path: "/servers/{id}/expiry-warnings" },
  { method: "GET", path: "/webhooks" },
  { method: "POST", path: "/webhooks" },
  { method: "PATCH", path: "/webhooks/{id}" },
  { method: "DELETE", path: "/webhooks/{id}" },
  { method: "POST", path: "/webhooks/{id}/test" },
  { method: "POST", path: "/webhooks/{id}/rotate-secret" },
  { method: "GET", path: "/webhooks/{id}/deliveries", list: true },
  { method: "POST", path: "/webhooks/{id}/deliveries/{deliveryId}/redeliver" },
  { method: "GET", path: "/topups", list: true },
  { method: "POST", path: "/topups", headers: { "x-payment": PAYMENT_HEADER } },
  { method: "GET", path: "/topups/{ref}" },
  { method: "POST", path: "/topups/{ref}/cancel" },
  { method: "POST", path: "/topups/{ref}/demo-pay", to: "/demo/topups/{ref}/pay" },
  { method: "POST", path: "/totp", to: "/account/totp" },
  { method: "POST", path: "/totp/confirm", to: "/account/totp/confirm" },
  { method: "POST", path: "/totp/disable", to: "/account/totp/disable" },
  { method: "GET", path: "/recovery-codes", to: "/account/recovery-codes" },
  { method: "POST", path: "/recovery-codes", to: "/account/recovery-codes" },
];

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

type LooseCall = (
  path: string,
  init: {
    params: { path: Record<string, string>; query?: Record<string, unknown> };
    body?: unknown;
    headers: Record<string, string>;
  },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Passes an allowlisted dashboard call to the API with the session's key: the body as JSON (bounded, and
 * `invalid_json` when it is not), the Idempotency-Key and the entry's own headers; the answer comes back
 * with its status and the headers `relay` keeps. A path or method not in FORWARDED never reaches the API.
 */
export async function forward({ request, api }: BffContext): Promise<Response> {
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
  const body = entry.method === "POST" || entry.method === "PATCH" ? await jsonBody(request) : undefined;
  const call = api[entry.method] as unknown as LooseCall;
  const query = { ...(entry.list ? listQuery(request) : {}), ...passedQuery(request, entry) };
  return relay(
    await call(entry.to ?? entry.path, {
      params: { path: params, ...(Object.keys(query).length > 0 ? { query } : {}) },
      ...(body === undefined ? {} : { body }),
      headers,
    }),
  );
}
