import { type NextRequest, NextResponse } from "next/server";
import { appMode } from "@/lib/config/mode";
import { newNonce, pageCsp, pathDecodes, STATIC_SECURITY_HEADERS } from "@/lib/http/security-headers";
import type { OperatorPageGate } from "@/lib/operator/page-gate";

/** Where the app's start-up installs the operator pages' request limit (lib/operator/page-gate.ts). */
const OPERATOR_PAGE_GATE = Symbol.for("vps.operator.pageGate");

const isOperatorPage = (pathname: string) => pathname === "/operator" || pathname.startsWith("/operator/");

/**
 * Runs before every page: a fresh script nonce and the page's Content-Security-Policy, and the not-found
 * page for a path that does not decode. An operator's page is counted against their request limit first,
 * like their API requests, and refused with 429 past it. The API and the BFF are screened in
 * lib/http/request-guard.ts and get their headers from next.config.
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  const csp = pageCsp({
    nonce: newNonce(),
    mode: appMode(process.env),
    development: process.env.NODE_ENV === "development",
  });
  const pathname = new URL(request.url).pathname;
  let limitHeaders: Record<string, string> = {};
  if (isOperatorPage(pathname)) {
    const gate = (globalThis as Record<symbol, OperatorPageGate | undefined>)[OPERATOR_PAGE_GATE];
    // Not installed means the app has not started: no operator page is served uncounted.
    const outcome = gate
      ? await gate(request.headers)
      : {
          headers: {},
          refusal: { status: 503 as const, message: "The service is starting; retry shortly." },
        };
    limitHeaders = outcome.headers;
    if (outcome.refusal) {
      const refused = new NextResponse(outcome.refusal.message, {
        status: outcome.refusal.status,
        headers: {
          "content-type": "text/plain; charset=utf-8",
          "cache-control": "no-store",
          ...limitHeaders,
        },
      });
      for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) refused.headers.set(name, value);
      refused.headers.set("Content-Security-Policy", csp);
      return refused;
    }
  }
  // Next reads the nonce from the request's policy and puts it on every script it renders.
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  const response = pathDecodes(pathname)
    ? NextResponse.next({ request: { headers } })
    : NextResponse.rewrite(new URL("/_not-found", request.url), { request: { headers } });
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) response.headers.set(name, value);
  response.headers.set("Content-Security-Policy", csp);
  for (const [name, value] of Object.entries(limitHeaders)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Not the API or the BFF (a proxy would make Next buffer their request bodies), nor built files.
  matcher: ["/((?!api/|bff/|_next/static|_next/image|favicon.ico).*)"],
};
