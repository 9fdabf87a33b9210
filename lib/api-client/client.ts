import "server-only";
import createClient, { type Middleware } from "openapi-fetch";
import { config } from "@/lib/config/env";
import { forwardedClientHeaders } from "@/lib/rate-limit/client-address";
import type { paths } from "./schema";

/**
 * Where the dashboard reaches the REST API: API_BASE_URL, else this app on loopback at its own PORT.
 * Only configuration decides it, never a request header: a forged Host would otherwise send the session's
 * Bearer key to any host the attacker names.
 */
export function apiBaseUrl(): string {
  const { apiBaseUrl, port } = config();
  return (apiBaseUrl ?? `http://127.0.0.1:${port}/api/v1`).replace(/\/+$/, "");
}

/**
 * The dashboard's one client of the REST API, typed from the OpenAPI document: it uses the public
 * contract over HTTP, never the service's internals. The Bearer key is added here, on the server; the
 * browser never holds it.
 */
export function apiClient(options: { apiKey?: string; clientAddress?: string } = {}) {
  const client = createClient<paths>({ baseUrl: apiBaseUrl() });
  const headers: Middleware = {
    onRequest({ request }) {
      if (options.apiKey) request.headers.set("authorization", `Bearer ${options.apiKey}`);
      // The API limits some calls per client address: pass on the browser's (signed), not this server's.
      if (options.clientAddress) {
        const forwarded = forwardedClientHeaders(config().sessionSecret, options.clientAddress);
        for (const [name, value] of Object.entries(forwarded)) request.headers.set(name, value);
      }
      return request;
    },
  };
  client.use(headers);
  return client;
}

export type ApiClient = ReturnType<typeof apiClient>;
