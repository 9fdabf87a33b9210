import "server-only";
import { type AuthContext, authenticateRequest } from "@/lib/accounts/auth";
import { clientAddress } from "@/lib/rate-limit/limits";
import { servingRequest } from "@/lib/util/activity";
import { ApiError } from "./errors";

type Params = Record<string, string | string[]>;
type NextRouteContext = { params: Promise<Params> };

export type PublicContext = { request: Request; params: Params; client: string };
export type AuthedContext = PublicContext & { auth: AuthContext };

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const JSON_HEADERS = { "content-type": JSON_CONTENT_TYPE, "cache-control": "no-store" };

/** A JSON response with the API's default headers (API answers are never cached by intermediaries). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function errorResponse(error: ApiError): Response {
  return json({ error: error.code, message: error.message, ...error.extra }, error.status, error.headers);
}

const NETWORK_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/** SQLSTATE classes and socket errors that mean "the database is unreachable now", not "the request is bad". */
function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let current = error;
    current instanceof Error;
    current = (current as Error & { cause?: unknown }).cause
  ) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string" && (/^(08|53|57P)/.test(code) || NETWORK_ERROR_CODES.has(code))) return true;
    // node-postgres says these in words only: a socket closed mid-query, a client broken by an earlier one.
    if (
      /Connection terminated|timeout exceeded when trying to connect|not queryable/i.test(current.message)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * What may be logged of an error: names, codes and the database's own messages along the cause chain.
 * Query errors are wrapped with their SQL parameters in the message, and parameters must never reach a log.
 */
function describeError(error: unknown): string {
  const parts: string[] = [];
  for (
    let current = error;
    current instanceof Error;
    current = (current as Error & { cause?: unknown }).cause
  ) {
    const code = (current as Error & { code?: unknown }).code;
    const message = current.message.startsWith("Failed query") ? "(query failed)" : current.message;
    parts.push(`${current.name}${typeof code === "string" ? ` [${code}]` : ""}: ${message}`);
  }
  return parts.join(" <- ") || String(error);
}

/**
 * Where an error was thrown: the first frames of its stack, and nothing else. The stack begins with the
 * message, which can run over several lines (a failed query lists its parameters on the second).
 */
function stackFrames(error: unknown): string {
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  return stack
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 3)
    .map((line) => line.trim())
    .join(" ");
}

/** Any error as the API answers it: its own ApiError, 503 while the database is away, else a logged 500. */
export function responseForError(error: unknown): Response {
  if (error instanceof ApiError) return errorResponse(error);
  if (isDatabaseUnavailable(error)) {
    console.error("database unavailable:", describeError(error));
    return errorResponse(
      new ApiError(
        503,
        "service_unavailable",
        "The service is briefly unavailable; retry shortly.",
        {},
        {
          "Retry-After": "1",
        },
      ),
    );
  }
  console.error("unhandled error:", describeError(error), stackFrames(error));
  return errorResponse(
    new ApiError(500, "internal_error", "Something went wrong on our side; retry shortly."),
  );
}

/** Wraps a public handler: one error shape for whatever it throws. */
export function publicRoute(handler: (context: PublicContext) => Promise<Response> | Response) {
  return (request: Request, route: NextRouteContext): Promise<Response> =>
    servingRequest(async () => {
      try {
        const params = (await route?.params) ?? {};
        return await handler({ request, params, client: clientAddress(request.headers) });
      } catch (error) {
        return responseForError(error);
      }
    });
}

/** Wraps a handler that needs the Bearer key: 401/429 before the handler runs, one error shape after. */
export function authedRoute(handler: (context: AuthedContext) => Promise<Response> | Response) {
  return publicRoute(async (context) => {
    const auth = await authenticateRequest(context.request, context.client);
    return handler({ ...context, auth });
  });
}

const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The 405 of a path that supports only `allowed`, with its Allow header, in the API's error shape. */
export const methodNotAllowedError = (allowed: readonly string[]) =>
  new ApiError(
    405,
    "method_not_allowed",
    `This path supports ${allowed.join(", ")} only.`,
    {},
    {
      Allow: allowed.join(", "),
    },
  );

/** `handler` for every method but `allowed`, to export from a route file. */
export function forOtherMethods<H>(allowed: readonly string[], handler: H) {
  return Object.fromEntries(
    ALL_METHODS.filter((m) => !allowed.includes(m)).map((m) => [m, handler]),
  ) as Record<(typeof ALL_METHODS)[number], H>;
}

/** Handlers for the methods a path does not support: 405 with an Allow header, in the API's error shape. */
export function methodNotAllowed(allowed: readonly string[]) {
  return forOtherMethods(allowed, async () => errorResponse(methodNotAllowedError(allowed)));
}

/** Parses a positive integer path id; anything else cannot name a resource and answers 404. */
export function pathId(params: Params, name: string, what: string): number {
  const raw = params[name];
  const value = typeof raw === "string" && /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > 2_147_483_647) {
    throw new ApiError(404, "not_found", `No ${what} with id ${String(raw)}.`);
  }
  return value;
}

/** GET handler for a document fixed for the life of the process: serialised once, cacheable for five minutes. */
export function staticJsonHandler(body: unknown, indent?: number) {
  const text = JSON.stringify(body, null, indent);
  return (): Response =>
    new Response(text, {
      headers: { "content-type": JSON_CONTENT_TYPE, "cache-control": "public, max-age=300" },
    });
}

/** Whether an If-None-Match header names `etag` (or is `*`): weak and strong forms compare alike for GET. */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}

/**
 * A JSON document the same for everyone, serialised once by its owner: 304 without a body when the client
 * already holds it (If-None-Match), else the text; either way with its ETag and how long it may be kept.
 */
export function sharedJson(request: Request, text: string, etag: string, maxAgeSeconds: number): Response {
  const headers = { etag, "cache-control": `public, max-age=${maxAgeSeconds}` };
  if (matchesEtag(request.headers.get("if-none-match"), etag))
    return new Response(null, { status: 304, headers });
  return new Response(text, { headers: { ...headers, "content-type": JSON_CONTENT_TYPE } });
}
