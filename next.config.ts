import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files, pg has optional native parts: the bundler must leave them alone.
  serverExternalPackages: ["@electric-sql/pglite", "pg"],
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: false,
  // `npm test` type-checks with `tsc --noEmit`; repeating it in every build cost the demo's first start 1.6 min.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
