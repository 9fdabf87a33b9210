import type { NextConfig } from "next";
import { API_CSP, STATIC_SECURITY_HEADERS } from "./lib/http/security-headers";

const staticHeaders = Object.entries(STATIC_SECURITY_HEADERS).map(([key, value]) => ({ key, value }));

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files, pg, ssh2, ws and zeromq have native parts, bclient vendors its socket
  // library: the bundler must leave them alone.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "ssh2", "ws", "zeromq", "bclient"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  // Each TanStack Query hook from its own module: through the package index every page carried every hook.
  experimental: { optimizePackageImports: ["@tanstack/react-query"] },
  // `npm test` type-checks with `tsc --noEmit`; repeating it in every build cost the demo's first start 1.6 min.
  typescript: { ignoreBuildErrors: true },
  // Pages get theirs, with a nonce, from proxy.ts; JSON answers load nothing and are never framed.
  async headers() {
    return [
      { source: "/:path*", headers: staticHeaders },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CSP }] },
      { source: "/bff/:path*", headers: [{ key: "Content-Security-Policy", value: API_CSP }] },
    ];
  },
};

export default nextConfig;
