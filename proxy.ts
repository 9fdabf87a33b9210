import { type NextRequest, NextResponse } from "next/server";
import { appMode } from "@/lib/config/mode";
import { newNonce, pageCsp, pathDecodes, STATIC_SECURITY_HEADERS } from "@/lib/http/security-headers";

/**
 * Runs before every page: a fresh script nonce and the page's Content-Security-Policy, and the not-found
 * page for a path that does not decode. The API and the BFF are screened in lib/http/request-guard.ts and
 * get their headers from next.config.
 */
export function proxy(request: NextRequest): NextResponse {
  const csp = pageCsp({
    nonce: newNonce(),
    mode: appMode(process.env),
    development: process.env.NODE_ENV === "development",
  });
  // Next reads the nonce from the request's policy and puts it on every script it renders.
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  const response = pathDecodes(new URL(request.url).pathname)
    ? NextResponse.next({ request: { headers } })
    : NextResponse.rewrite(new URL("/_not-found", request.url), { request: { headers } });
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) response.headers.set(name, value);
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  // Not the API or the BFF (a proxy would make Next buffer their request bodies), nor built files.
  matcher: ["/((?!api/|bff/|_next/static|_next/image|favicon.ico).*)"],
};
