import "server-only";
import { forOtherMethods, json, methodNotAllowedError, responseForError } from "@/lib/api/route";
import { config } from "@/lib/config/env";
import { ownOrigin } from "@/lib/http/origin";
import { clientAddress, consume, limiters } from "@/lib/rate-limit/limits";
import { csrfTokenMatches } from "./credentials";
import { noSuchEndpoint, OperatorError } from "./errors";
import { lowestRoleFor, may, type OperatorPermission } from "./roles";
import { type OperatorSession, operatorSession, operatorTokenFromCookies } from "./sessions";

type Params = Record<string, string | string[]>;
type NextRouteContext = { params: Promise<Params> };

export type OperatorContext = { request: Request; params: Params; operator: OperatorSession };

const READS = new Set(["GET", "HEAD"]);

/**
 * The operator API's write rule, stricter than the dashboard's: the session's CSRF token in `X-CSRF-Token`
 * (only its own pages are given it), and, where the browser says where the request comes from, this very
 * origin (`Origin`) and a same-origin fetch (`Sec-Fetch-Site`). With SameSite=Strict on the cookie, a request
 * from any other site carries no session at all.
 */
export function writeAllowed(request: Request, session: Pick<OperatorSession, "token">): boolean {
  const origin = request.headers.get("origin");
  if (origin && origin !== ownOrigin(request, config().publicBaseUrl)) return false;
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin") return false;
  return csrfTokenMatches(config().operatorCsrfKey, session.token, request.headers.get("x-csrf-token"));
}

/** The live operator session of a request (its cookie only: an Authorization header means nothing here). */
export async function sessionOfRequest(request: Request): Promise<OperatorSession | undefined> {
  const client = clientAddress(request.headers);
  return operatorSession(operatorTokenFromCookies(request.headers.get("cookie")), client);
}

/**
 * Wraps an operator API handler. Without a live operator session the answer is the unknown path's 404,
 * whatever else the request carries (a customer's key or cookie included). Then: the operator's own request
 * limit, the write rule above (403 csrf_failed), the role's permission (403 operator_forbidden), and one
 * error shape for whatever the handler throws. Nothing is changed by a refused request.
 */
export function operatorRoute(
  permission: OperatorPermission,
  handler: (context: OperatorContext) => Promise<Response> | Response,
) {
  return async (request: Request, route: NextRouteContext): Promise<Response> => {
    let rateHeaders: Record<string, string> = {};
    try {
      const operator = await sessionOfRequest(request);
      if (!operator) throw noSuchEndpoint(request);
      rateHeaders = await consume(limiters().operatorRequests, `operator:${operator.operatorId}`);
      if (!READS.has(request.method) && !writeAllowed(request, operator)) {
        throw new OperatorError(
          403,
          "csrf_failed",
          "A write needs this session's X-CSRF-Token and must come from this site's own pages.",
        );
      }
      if (!may(operator.role, permission)) {
        throw new OperatorError(
          403,
          "operator_forbidden",
          `Your role (${operator.role}) does not allow this; it needs ${lowestRoleFor(permission)} or above.`,
        );
      }
      const params = (await route?.params) ?? {};
      const response = await handler({ request, params, operator });
      for (const [name, value] of Object.entries(rateHeaders)) response.headers.set(name, value);
      return response;
    } catch (error) {
      const response = responseForError(error);
      for (const [name, value] of Object.entries(rateHeaders)) {
        if (!response.headers.has(name)) response.headers.set(name, value);
      }
      return response;
    }
  };
}

/**
 * The methods a path does not support: 405 with Allow for a signed-in operator, and for anyone else the 404 of
 * every operator path, so a method probe tells a stranger nothing either.
 */
export function operatorMethodNotAllowed(allowed: readonly string[]) {
  return forOtherMethods(
    allowed,
    operatorRoute("read", () => {
      throw methodNotAllowedError(allowed);
    }),
  );
}

/** A numeric path id, or the unknown path's 404. */
export function operatorPathId(context: OperatorContext, name = "id"): number {
  const raw = context.params[name];
  if (typeof raw !== "string" || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw noSuchEndpoint(context.request);
  }
  return Number(raw);
}

export { json };
