import "server-only";
import { createHash } from "node:crypto";
import { type AuthContext, authenticateRequest } from "@/lib/accounts/auth";
import { missingScope } from "@/lib/accounts/key-rights";
import { API_KEY_SCOPES, SPEND_SCOPE } from "@/lib/db/types";
import { KeyCannotSpend, SpendCapExceeded } from "@/lib/ledger/spend-caps";
import { clientIp, limitKeyForAddress } from "@/lib/rate-limit/limits";
import { servingRequest } from "@/lib/util/activity";
import { centsToUsd, formatUsd } from "@/lib/util/cents";
import { authorizeDeclared } from "./authorize";
import { ApiError } from "./errors";
import { type DeclaredOperation, declaredOperation } from "./openapi/operations";

type Params = Record<string, string | string[]>;
type NextRouteContext = { params: Promise<Params> };

/**
 * A request as a handler gets it: `client` is what rate limits count it by (an IPv6 client by its /64),
 * `address` the client's own address (behind TRUST_PROXY_HOPS).
 */
export type PublicContext = { request: Request; params: Params; client: string; address: string };
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

/**
 * A debit the ledger refused for the key that caused it (lib/ledger/spend-caps.ts), as the API answers it:
 * 403 `missing_scope` without the spending scope, 402 `spend_cap_exceeded` with the cap, what is spent and
 * when it resets.
 */
function spendRefusal(error: KeyCannotSpend | SpendCapExceeded): ApiError {
  if (error instanceof KeyCannotSpend) {
    return missingScope(
      [SPEND_SCOPE],
      API_KEY_SCOPES.filter((scope) => error.scopes.includes(scope)),
    );
  }
  const { cap, amountCents } = error;
  const whose =
    cap.depth === 0 ? "This API key's spend cap" : `The spend cap of key ${cap.keyId} (above this one)`;
  const period = cap.period === "total" ? "in total" : `per ${cap.period}`;
  const left = formatUsd(Math.max(0, cap.capCents - cap.spentCents));
  const resets = cap.resetsAt ? ` It resets at ${cap.resetsAt.toISOString()}.` : " It does not reset.";
  return new ApiError(
    402,
    "spend_cap_exceeded",
    `${whose}, ${formatUsd(cap.capCents)} ${period}, has ${left} left: less than the ` +
      `${formatUsd(amountCents)} this would debit, so nothing was charged.${resets}`,
    {
      cap: centsToUsd(cap.capCents),
      period: cap.period,
      spent: centsToUsd(cap.spentCents),
      price: centsToUsd(amountCents),
      resets_at: cap.resetsAt?.toISOString() ?? null,
      cap_key_id: cap.keyId,
    },
  );
}

/** Any error as the API answers it: its own ApiError, 503 while the database is away, else a logged 500. */
export function responseForError(error: unknown): Response {
  if (error instanceof ApiError) return errorResponse(error);
  if (error instanceof KeyCannotSpend || error instanceof SpendCapExceeded) {
    return errorResponse(spendRefusal(error));
  }
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
        const address = clientIp(request.headers);
        return await handler({ request, params, client: limitKeyForAddress(address), address });
      } catch (error) {
        return responseForError(error);
      }
    });
}

/** The server a request names in its path, when the operation acts on one and the id can name one. */
function serverIdOf(operation: DeclaredOperation, params: Params): number | undefined {
  const raw = operation.serverParam ? params[operation.serverParam] : undefined;
  return typeof raw === "string" && /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * Wraps the handler of the operation `operationId` (as lib/api/openapi declares it), which needs the Bearer
 * key: 401/429 for the key, then 403 when the key lacks the scope the operation declares or is used from an
 * address it does not allow, and 404 for a server the key may not touch, all before the handler runs; one
 * error shape after.
 */
export function authedRoute(
  operationId: string,
  handler: (context: AuthedContext) => Promise<Response> | Response,
) {
  const operation = declaredOperation(operationId);
  return publicRoute(async (context) => {
    const auth = await authenticateRequest(context.request, context);
    authorizeDeclared(auth, operation, {
      address: context.address,
      serverId: serverIdOf(operation, context.params),
    });
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

/** A JSON document the same for everyone, serialised once, with an ETag naming its text. */
export type SharedDocument = { text: string; etag: string };

/** `body` serialised, and its ETag: 22 base64url characters of the text's SHA-256. */
export function sharedDocument(body: unknown, indent?: number): SharedDocument {
  const text = JSON.stringify(body, null, indent);
  return { text, etag: `"${createHash("sha256").update(text).digest("base64url").slice(0, 22)}"` };
}

/** A document fixed for the process's life (the OpenAPI documents), answered by sharedJson. */
export function staticJsonHandler(body: unknown, indent?: number) {
  const document = sharedDocument(body, indent);
  return (request: Request): Response => sharedJson(request, document.text, document.etag, 300);
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
