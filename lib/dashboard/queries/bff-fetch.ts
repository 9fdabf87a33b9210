/**
 * The browser's one way to call the BFF: JSON in and out, a typed error for every non-2xx answer, and a
 * trip to sign-in when the session has ended (401), as the dashboard never retries a refused session.
 */
export class BffError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

export async function bffFetch<T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? "GET",
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    cache: "no-store",
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status === 401 && body.error === "signed_out") {
    window.location.assign("/signin");
  }
  if (!response.ok) {
    throw new BffError(
      response.status,
      String(body.error ?? "http_error"),
      String(body.message ?? `The request failed (${response.status}).`),
      body,
    );
  }
  return body as T;
}

/** A message fit to show a person, for any error a query or mutation may throw. */
export function errorMessage(error: unknown): string {
  if (error instanceof BffError) return error.message;
  return "The dashboard could not reach the service; check the connection and try again.";
}
