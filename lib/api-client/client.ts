import "server-only";
import createClient, { type Middleware } from "openapi-fetch";
import { config } from "@/lib/config/env";
import { forwardedClientHeaders } from "@/lib/rate-limit/client-address";
import type { paths } from "./schema";

/**
 * The dashboard's one client of the REST API, typed from the OpenAPI document. It speaks to API_BASE_URL, or
 * to this same app over HTTP: the dashboard uses the public contract, never the service's internals.
 * The Bearer key is added here, on the server; the browser never holds it.
 */
export function apiClient(options: { origin: string; apiKey?: string; clientAddress?: string }) {
  const baseUrl = config().apiBaseUrl ?? `${options.origin}/api/v1`;
  const client = createClient<paths>({ baseUrl });
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
