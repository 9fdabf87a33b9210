import "server-only";
import type { IronSession } from "iron-session";
import { readLimited } from "@/lib/api/body";
import { ApiError, badRequest } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { type ApiCaller, type ApiClient, apiClient } from "@/lib/dashboard/api-client/client";
import { ownOrigin } from "@/lib/http/origin";
import { clientIp } from "@/lib/rate-limit/limits";
import { firstLine } from "@/lib/util/log";
import { type DashboardSession, dashboardSession } from "./session";

type RouteParams = Record<string, string | string[] | undefined>;

export type BffContext = {
  request: Request;
  session: IronSession<DashboardSession>;
  /** The API, as the signed-in user when there is a session. */
  api: ApiClient;
  /** Who the API sees: the session's key (when there is one) and the browser's address. */
  caller: ApiCaller;
  /** The dynamic segments of the route (`[id]`, `[ref]`, a catch-all's list). */
  params: RouteParams;
};

const bffJson = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });

/**
 * A state-changing request must come from our own pages: its Origin must be ours (browsers send it on
 * every cross-site POST), or, when a browser omits it, Sec-Fetch-Site must say same-origin. Together with
 * the SameSite cookie this refuses cross-site request forgery.
 */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin) return origin === ownOrigin(request, config().publicBaseUrl);
  return request.headers.get("sec-fetch-site") === "same-origin";
}

/** The signed-out answer: the session is gone and the page should go to sign-in. */
export async function signedOut(session: IronSession<DashboardSession>) {
  session.destroy();
  return bffJson({ error: "signed_out", message: "Your session has ended; sign in again." }, 401);
}

/**
 * Wraps a dashboard (BFF) route handler: refuses cross-origin writes, opens the cookie session, gives the
 * handler an API client carrying the session key, and turns an API 401 into the end of the session.
 */
export function bffRoute(
  handler: (context: BffContext) => Promise<Response>,
  options: { signedIn: boolean },
) {
  return async (request: Request, route: { params: Promise<RouteParams> }): Promise<Response> => {
    if (request.method !== "GET" && request.method !== "HEAD" && !sameOrigin(request)) {
      return bffJson(
        { error: "cross_origin", message: "This request must come from the dashboard itself." },
        403,
      );
    }
    const session = await dashboardSession();
    if (options.signedIn && !session.apiKey) return signedOut(session);
    const caller = { apiKey: session.apiKey, clientAddress: clientIp(request.headers) };
    const api = apiClient(caller);
    try {
      const params = (await route?.params) ?? {};
      const response = await handler({ request, session, api, caller, params });
      if (options.signedIn && response.status === 401) return signedOut(session);
      return response;
    } catch (error) {
      // The API's own refusals raised here (a body too large, a rate limit) answer as the API would.
      if (error instanceof ApiError) {
        const response = bffJson({ error: error.code, message: error.message, ...error.extra }, error.status);
        for (const [name, value] of Object.entries(error.headers)) response.headers.set(name, value);
        return response;
      }
      console.error("bff:", firstLine(error));
      return bffJson({ error: "api_unreachable", message: "The service did not answer; try again." }, 502);
    }
  };
}

/** Keeps a new session key (from POST /sessions) in the cookie; only the cookie ever holds it. */
export async function startSession(
  session: IronSession<DashboardSession>,
  signedIn: { api_key: string; expires_at: string },
): Promise<void> {
  session.apiKey = signedIn.api_key;
  session.expiresAt = signedIn.expires_at;
  await session.save();
}

/** API response headers a dashboard page may act on: a replayed order, when to retry. */
const RELAYED_HEADERS = ["idempotent-replayed", "retry-after"];

/** Passes an API answer on to the browser as it is (status, JSON body and the headers above). */
export function relay(result: { response: Response; data?: unknown; error?: unknown }) {
  const response = bffJson(result.data ?? result.error ?? {}, result.response.status);
  for (const name of RELAYED_HEADERS) {
    const value = result.response.headers.get(name);
    if (value) response.headers.set(name, value);
  }
  return response;
}

export { bffJson };

/** The browser's Idempotency-Key, passed on so a repeated click or a retried request moves money once. */
export function idempotencyHeader(request: Request): Record<string, string> {
  const key = request.headers.get("idempotency-key");
  return key ? { "idempotency-key": key } : {};
}

/**
 * What a route parameter may be: a numeric id, a top-up reference, an IP address (its characters: the API
 * reads it); anything else is a 404, as on the API.
 */
export const PATH_PARAMETERS: Record<string, RegExp> = {
  id: /^\d{1,10}$/,
  snapshotId: /^\d{1,10}$/,
  deliveryId: /^\d{1,10}$/,
  ref: /^[A-Za-z0-9_-]{1,64}$/,
  address: /^[0-9A-Fa-f:.]{2,45}$/,
};

/** A numeric id from the route, or undefined when the segment is not one. */
export function numericId(params: RouteParams): string | undefined {
  const id = params.id;
  return typeof id === "string" && PATH_PARAMETERS.id?.test(id) ? id : undefined;
}

export const notFound = (what: string) => bffJson({ error: "not_found", message: `No such ${what}.` }, 404);

/** A top-up reference from the route, or undefined when it cannot be one. */
export function refParam(params: RouteParams): string | undefined {
  const ref = params.ref;
  return typeof ref === "string" && PATH_PARAMETERS.ref?.test(ref) ? ref : undefined;
}

/**
 * The request's JSON body, or undefined when it is empty; a body that is not JSON is `400 invalid_json`,
 * as on the API, so a broken request never falls back to defaults. Read with the API's own size bound
 * (413 past `maxBytes`, default MAX_BODY_BYTES), so no dashboard route buffers an unbounded body.
 */
export async function jsonBody(request: Request, maxBytes = config().maxBodyBytes): Promise<unknown> {
  const text = await readLimited(request, maxBytes);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("invalid_json", "The request body is not valid JSON.");
  }
}
