import { parseJsonBody } from "@/lib/api/body";
import { json, publicRoute } from "@/lib/api/route";
import { config } from "@/lib/config/env";
import { ownOrigin } from "@/lib/http/origin";
import { csrfTokenFor } from "@/lib/operator/credentials";
import { OperatorError } from "@/lib/operator/errors";
import { operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";
import { SignInBody } from "@/lib/operator/schemas";
import {
  clearedOperatorCookie,
  cookieSecondsFor,
  type OperatorSession,
  operatorCookie,
  signIn,
  signOut,
} from "@/lib/operator/sessions";

const present = (session: OperatorSession) => ({
  operator: { name: session.name, role: session.role },
  expires_at: session.expiresAt.toISOString(),
  idle_until: session.idleUntil.toISOString(),
  csrf_token: csrfTokenFor(config().operatorCsrfKey, session.token),
});

/** Sign-in: the one operator path open without a session. A browser's sign-in must come from this site. */
export const POST = publicRoute(async ({ request, client }) => {
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  if ((origin && origin !== ownOrigin(request, config().publicBaseUrl)) || (site && site !== "same-origin")) {
    throw new OperatorError(403, "csrf_failed", "Sign in from this site's own operator page.");
  }
  const body = await parseJsonBody(request, SignInBody);
  const { token, session } = await signIn({ secret: body.secret, code: body.code, client });
  return json(present(session), 200, { "Set-Cookie": operatorCookie(token, cookieSecondsFor(session)) });
});

export const GET = operatorRoute("read", ({ operator }) => json(present(operator)));

export const DELETE = operatorRoute("read", async ({ operator }) => {
  await signOut(operator);
  return new Response(null, { status: 204, headers: { "Set-Cookie": clearedOperatorCookie() } });
});

export const { PUT, PATCH } = operatorMethodNotAllowed(["GET", "POST", "DELETE"]);
