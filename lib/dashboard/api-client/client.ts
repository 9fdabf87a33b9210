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

/** Who the API sees: the session's key and the browser's address. */
export type ApiCaller = { apiKey?: string; clientAddress?: string };

/**
 * The dashboard's one client of the REST API, typed from the OpenAPI document: it uses the public
 * contract over HTTP, never the service's internals. The Bearer key is added here, on the server; the
 * browser never holds it.
 */
export const apiClient = (options: ApiCaller = {}) => connectedClient<paths>(options);

export type ApiClient = ReturnType<typeof apiClient>;

/** The HTTP methods an operation can have, as the generated types spell them. */
type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
type Verb = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Every operation of the API as `METHOD /path`, read from the generated types: a name that is not one of
 * them is a type error, and a table keyed by all of them fails to compile until a new operation is in it.
 */
export type ApiOperation = {
  [P in keyof paths]: {
    [V in Verb]: paths[P][Lowercase<V>] extends undefined ? never : `${V} ${P}`;
  }[Verb];
}[keyof paths];

/** An operation whose input is passed on as it came: string path and query parameters, any JSON body. */
type UncheckedOperation = {
  parameters: { path?: Record<string, string>; query?: Record<string, string | number> };
  requestBody?: { content: { "application/json": unknown } };
  responses: { default: { content: { "application/json": unknown } } };
};

/**
 * The same client with every operation's input left to the API to check, for the BFF's forwarder, which
 * passes on a browser's request unread; which paths it may call is settled by its allowlist, keyed by
 * ApiOperation.
 */
export const uncheckedApiClient = (options: ApiCaller = {}) =>
  connectedClient<Record<string, Record<HttpMethod, UncheckedOperation>>>(options);

/** A client at the configured API origin that adds the caller's key and address to every request. */
function connectedClient<Paths extends {}>(options: ApiCaller) {
  const client = createClient<Paths>({ baseUrl: apiBaseUrl(), fetch: riding503 });
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
