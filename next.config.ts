import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files, pg has optional native parts: the bundler must leave them alone.
  serverExternalPackages: ["@electric-sql/pglite", "pg"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
};

export default nextConfig;
