/**
 * The security headers of every answer, and the request checks that must run before any route: both are
 * applied by the request proxy (proxy.ts), the static ones also by next.config for files it serves alone.
 */

/** Headers that hold for every response, static files included. */
export const STATIC_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  // Our own pages may see where a visit came from; other sites never see our paths (top-up references).
  "Referrer-Policy": "same-origin",
  // For browsers that predate CSP's frame-ancestors.
  "X-Frame-Options": "DENY",
} as const;

/** JSON answers (API and BFF) load nothing and may not be framed. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The policy of a page. Scripts run only with this response's nonce, which Next puts on its own inline
 * and bundle scripts; 'strict-dynamic' lets those load the chunks they import (the wallet code), and
 * nothing else, not even a script injected into the page, runs. Style attributes (React's `style`) need
 * 'unsafe-inline' for styles only. Everything else loads from this origin; wallet reads go through our
 * own /bff/wallet/rpc, so connect-src needs no chain node.
 */
export function pageCsp(options: { nonce: string; mode: "demo" | "production"; development: boolean }) {
  const { nonce, mode, development } = options;
  const directives = [
    "default-src 'self'",
    // React's development build evaluates code for its debugging aids; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${development ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  if (mode === "production") directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

/** HSTS for production, where TLS terminates in front of the app; a demo on plain HTTP sends none. */
export const HSTS = "max-age=31536000";

/** A fresh nonce per page response: 128 random bits. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}

/** Methods any route here answers; others (TRACE, CONNECT, made-up ones) are refused before routing. */
export const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Whether every segment of a raw path percent-decodes (`%ff` alone is no UTF-8 and names nothing). */
export function pathDecodes(rawPath: string): boolean {
  try {
    decodeURIComponent(rawPath);
    return true;
  } catch {
    return false;
  }
}

/** Which part of the app a path belongs to: the API and the BFF answer JSON, everything else is a page. */
export function areaOf(pathname: string): "api" | "bff" | "page" {
  if (pathname === "/api" || pathname.startsWith("/api/") || pathname === "/mcp") return "api";
  if (pathname === "/bff" || pathname.startsWith("/bff/")) return "bff";
  return "page";
}
