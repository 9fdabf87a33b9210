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
  const client = createClient<paths>({ baseUrl: apiBaseUrl(), fetch: riding503 });
  const headers: Middleware = {
    onRequest({ request }) {
      if (options.apiKey) request.headers.set("authorization", `Bearer ${options.apiKey}`);
      // The API limits some calls per client address: pass on the browser's (signed), not this server's.
      if (options.clientAddress) {
        const forwarded = forwardedClientHeaders(config().clientAddressKey, options.clientAddress);
        for (const [name, value] of Object.entries(forwarded)) request.headers.set(name, value);
      }
      return request;
    },
  };
  client.use(headers);
  return client;
}

export type ApiClient = ReturnType<typeof apiClient>;

/** The platform's fetch, as it was before Next wrapped it with its render-time caching. */
const unpatchedFetch = (): typeof fetch =>
  (globalThis.fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch })._nextOriginalFetch ?? fetch;

/** Reads retried while the API answers a short 503 (its database restarting): at most this long in all. */
const READ_RETRY_BUDGET_MS = 20_000;

/**
 * Fetch for the dashboard's API calls: a read (GET) answered 503 with a Retry-After of a few seconds is
 * sent again after it, within a small budget, so a page rides through a database restart instead of
 * showing its error. Writes are never repeated here; their callers decide.
 */
async function riding503(request: Request): Promise<Response> {
  const deadline = Date.now() + READ_RETRY_BUDGET_MS;
  for (;;) {
    const attempt = request.method === "GET" ? request.clone() : request;
    // Past Next's fetch patch, and with a signal of its own: within one page render, the fetch Next keeps as
    // "original" still deduplicates GETs by URL and would hand every retry the first (503) answer again; a
    // caller-owned signal is its documented opt-out.
    const response = await unpatchedFetch()(attempt, {
      cache: "no-store",
      signal: new AbortController().signal,
    });
    const wait = Number(response.headers.get("retry-after")) * 1000;
    if (request.method !== "GET" || response.status !== 503 || !(wait > 0) || Date.now() + wait > deadline) {
      return response;
    }
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
