import type { ErrorCode } from "./error-codes";

/**
 * Every failure the API reports is an ApiError: an HTTP status, a machine-readable code and a sentence.
 * Service functions throw these; the route wrapper turns them into `{error, message}` responses.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra body fields beside error and message (e.g. price and deficit on insufficient_balance). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (code: ErrorCode, message: string) => new ApiError(400, code, message);

export const unauthorized = (message = "A valid API key is required: send Authorization: Bearer <key>.") =>
  new ApiError(401, "unauthorized", message, {}, { "WWW-Authenticate": 'Bearer realm="api"' });

export const notFound = (message: string) => new ApiError(404, "not_found", message);

export const conflict = (code: ErrorCode, message: string) => new ApiError(409, code, message);

/** 429 with Retry-After, plus the limiter's own RateLimit headers. */
export function tooManyRequests(retryAfterSeconds: number, rateLimitHeaders: Record<string, string>) {
  return new ApiError(
    429,
    "rate_limited",
    `Too many requests. Try again in ${retryAfterSeconds} seconds.`,
    {},
    { "Retry-After": String(retryAfterSeconds), ...rateLimitHeaders },
  );
}
