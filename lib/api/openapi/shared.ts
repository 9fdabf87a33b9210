/** What the per-resource OpenAPI files share: error responses, headers and the authenticated wrapper. */

import { z } from "zod";
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from "zod-openapi";
import type { ErrorCode } from "@/lib/api/error-codes";
import { fieldCodesOf, type RequestBody } from "@/lib/api/request-body";
import { ErrorSchema } from "@/lib/api/schemas/common";
import { KeyRefusalSchema } from "@/lib/api/schemas/keys";
import { ANY_KEY, type OperationScope } from "@/lib/api/scopes";
import { settingDefaults } from "@/lib/boot/settings";
import type { RateLimitSpec } from "@/lib/rate-limit/config";

/** The configuration's defaults: the descriptions quote them rather than retype them. */
export const DEFAULTS = settingDefaults();

/** A rate limit as the descriptions write it: `10 an hour`, `100 a day`, `10 per 15 minutes`. */
export const perWindow = ({ limit, windowSeconds }: RateLimitSpec) =>
  windowSeconds === 3600
    ? `${limit} an hour`
    : windowSeconds === 86_400
      ? `${limit} a day`
      : `${limit} per ${windowSeconds / 60} minutes`;

export const jsonContent = (schema: z.ZodType) => ({ "application/json": { schema } });

export const errorResponse = (
  description: string,
  codes: ErrorCode[],
  headers?: ZodOpenApiResponseObject["headers"],
) => ({
  description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
  content: jsonContent(ErrorSchema),
  ...(headers ? { headers } : {}),
});

export const retryAfter = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" as const } },
  RateLimit: {
    description:
      'Remaining quota and seconds to reset, e.g. `"account-create";r=0;t=' +
      (DEFAULTS.RATE_LIMIT_ACCOUNT_CREATE.windowSeconds - 1) +
      "`.",
    schema: { type: "string" as const },
  },
  "RateLimit-Policy": {
    description:
      'The quota, e.g. `"account-create";q=' +
      DEFAULTS.RATE_LIMIT_ACCOUNT_CREATE.limit +
      ";w=" +
      DEFAULTS.RATE_LIMIT_ACCOUNT_CREATE.windowSeconds +
      "`.",
    schema: { type: "string" as const },
  },
};

export const BODY_ERRORS: ErrorCode[] = ["invalid_json", "invalid_body", "unknown_field", "invalid_request"];

/** An operation's JSON request body: the declaration its route parses with. */
export const jsonRequest = <T>(body: RequestBody<T>, { required = true } = {}) => ({
  required,
  content: jsonContent(body.schema),
});

/**
 * The 400 of an operation that takes a JSON body: the errors of every body, each field's own code (from the
 * body's declaration, the one its route parses with), then the operation's other 400 codes.
 */
export const bodyErrors = <T>(description: string, body: RequestBody<T>, more: ErrorCode[] = []) =>
  errorResponse(description, [...BODY_ERRORS, ...fieldCodesOf(body), ...more]);

export const responses = {
  badPage: errorResponse("A bad `limit` or `cursor`.", ["invalid_limit", "invalid_cursor"]),
  idempotencyKeyReused: errorResponse("The Idempotency-Key was used with a different body.", [
    "idempotency_key_reused",
  ]),
  unauthorized: errorResponse(
    "Missing, malformed, unknown or revoked API key (`unauthorized`), or a key past its `expires_at` " +
      "(`key_expired`, with `expired_at`: make a new key).",
    ["unauthorized", "key_expired"],
  ),
  authRateLimited: errorResponse(
    "This client address sent too many bad API keys; this key is bad too. Good keys are never refused.",
    ["rate_limited"],
    retryAfter,
  ),
  tooLarge: errorResponse(
    `The body is larger than the limit (${DEFAULTS.MAX_BODY_BYTES / 1024} KiB by default).`,
    ["payload_too_large"],
  ),
  unsupportedMedia: errorResponse("A non-empty body that is not JSON.", ["unsupported_media_type"]),
  unavailable: errorResponse("The database is briefly unreachable; retry shortly.", ["service_unavailable"]),
};

/**
 * The 429 of operations that run on a hypervisor (power, root password, reinstall, snapshots, rescue): the account's limit on
 * host operations, besides the bad-key limit every authenticated operation has.
 */
export const hostOperationLimited = errorResponse(
  "Too many host operations for this account (power actions, root password changes, reinstalls, snapshots " +
    `taken, restored or deleted, and rescue mode together: ` +
    `${perWindow(DEFAULTS.RATE_LIMIT_HOST_OPERATIONS)} by default, \`RATE_LIMIT_HOST_OPERATIONS\`); nothing was ` +
    "done or queued, and refusals (4xx) are not counted. Also this client address sending too many bad API keys.",
  ["rate_limited"],
  retryAfter,
);

/** The refusals of a key's conditions and scopes, which every operation that takes a key can answer. */
const keyRefusals = (scope: OperationScope) =>
  scope === ANY_KEY
    ? "Any valid key may call this, whatever its scopes; a key used from outside the networks it is limited " +
      "to is refused (`address_not_allowed`, with the client address as seen)."
    : `The key must hold the scope \`${scope}\`: without it, \`missing_scope\` (naming the scopes needed and ` +
      "those the key holds). A key used from outside the networks it is limited to: `address_not_allowed` " +
      "(with the client address as seen).";

/**
 * An operation that takes the Bearer key, with the one scope it needs (`x-scope`, also the role named in its
 * security requirement; ANY_KEY for what every key may do). The route enforces what is declared here:
 * `authedRoute` looks the operation up by its id (lib/api/openapi/operations.ts). Adds the responses every
 * authenticated operation can give besides its own.
 */
export const authed = (
  scope: OperationScope,
  operation: ZodOpenApiOperationObject,
): ZodOpenApiOperationObject => {
  const own403 = operation.responses?.["403"] as { description?: string } | undefined;
  return {
    ...operation,
    security: [{ bearerAuth: scope === ANY_KEY ? [] : [scope] }],
    "x-scope": scope,
    responses: {
      ...operation.responses,
      "401": responses.unauthorized,
      "403": own403
        ? { ...own403, description: `${own403.description ?? ""} ${keyRefusals(scope)}` }
        : { description: keyRefusals(scope), content: jsonContent(KeyRefusalSchema) },
      "429": operation.responses?.["429"] ?? responses.authRateLimited,
      // The key lookup and the bad-key limit need the database: while it restarts, 503 with Retry-After.
      "503": operation.responses?.["503"] ?? responses.unavailable,
    },
  };
};

/** An operation that takes no key: declared so (an empty security requirement), not left unsaid. */
export const publicOperation = (operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject => ({
  ...operation,
  security: [],
});

export const topupRefParam = z.object({
  ref: z.string().meta({
    description: "The top-up's ref, as returned when it was created.",
    example: "tp_7k2m9q4xw3c8r5tz6yb1dqe3",
  }),
});

export const idempotencyHeader = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        "1 to 255 printable ASCII characters. The same key with the same body returns the first response again " +
        "(with `Idempotent-Replayed: true`) for 24 hours; with another body it is refused (422). Failed requests " +
        "do not use up the key. Keys are per account.",
    }),
});
