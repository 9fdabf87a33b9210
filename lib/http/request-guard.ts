import http from "node:http";
import { appMode } from "@/lib/config/mode";
import {
  API_CSP,
  areaOf,
  HSTS,
  KNOWN_METHODS,
  pathDecodes,
  STATIC_SECURITY_HEADERS,
} from "./security-headers";

const API_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

let installed = false;

/**
 * Screens every request on this process's HTTP servers before Next sees it. Next cannot represent some
 * requests at all (TRACE is a method fetch's Request refuses; a path such as /api/v1/servers/%ff does not
 * decode) and would answer them with a plain-text 500; here they get a 405 or a 404 in the shape of the
 * area they reach. In production every response also carries HSTS. Nothing else is touched: the request
 * proxy (proxy.ts) is kept off the API and BFF, since a proxy makes Next buffer every request body first.
 */
export function guardRequests(): void {
  if (installed) return;
  installed = true;
  const production = appMode(process.env) === "production";
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [request, response] = args as [http.IncomingMessage, http.ServerResponse];
      if (production) response.setHeader("Strict-Transport-Security", HSTS);
      if (screen(request, response)) return true;
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof emit;
}

/** Answers a request no route can take; true when it did. */
function screen(request: http.IncomingMessage, response: http.ServerResponse): boolean {
  const pathname = (request.url ?? "/").split("?")[0] ?? "/";
  const area = areaOf(pathname);
  const method = request.method ?? "";
  if (!KNOWN_METHODS.has(method)) {
    if (area === "page") answer(request, response, 405, undefined, { Allow: "GET, HEAD" });
    else {
      const body = { error: "method_not_allowed", message: `${method} is not supported.` };
      answer(request, response, 405, body, { Allow: API_METHODS });
    }
    return true;
  }
  // Pages with such a path get the not-found page from the proxy, with the page's own headers.
  if (area !== "page" && !pathDecodes(pathname)) {
    const body = { error: "not_found", message: "No such endpoint: the path is not valid UTF-8." };
    answer(request, response, 404, body);
    return true;
  }
  return false;
}

function answer(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  status: number,
  body: { error: string; message: string } | undefined,
  headers: Record<string, string> = {},
): void {
  const text = body ? JSON.stringify(body) : "";
  response.writeHead(status, {
    ...STATIC_SECURITY_HEADERS,
    ...headers,
    "Cache-Control": "no-store",
    "Content-Security-Policy": API_CSP,
    ...(body ? { "Content-Type": "application/json; charset=utf-8" } : {}),
    "Content-Length": String(Buffer.byteLength(text)),
  });
  response.end(request.method === "HEAD" ? undefined : text);
  // Whatever body came with it is never read: drain it so the connection stays usable.
  request.resume();
}
