/**
 * The OpenAPI 3.1 description of API v1, generated from the same zod schemas the routes validate with.
 * Where the written spec leaves a detail open ("not shown"), the choice made here is the contract.
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponseObject } from "zod-openapi";
import { AccountCreatedSchema, AccountSchema } from "@/lib/schemas/account";
import { CatalogSchema } from "@/lib/schemas/catalog";
import { ErrorSchema } from "@/lib/schemas/common";
import { HealthSchema } from "@/lib/schemas/health";
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  CreateKeyRequestSchema,
  MAX_ACTIVE_KEYS,
  RevokedKeySchema,
} from "@/lib/schemas/keys";
import { API_VERSION_INFO } from "./info";

const jsonContent = (schema: z.ZodType) => ({ "application/json": { schema } });

const errorResponse = (
  description: string,
  codes: string[],
  headers?: ZodOpenApiResponseObject["headers"],
) => ({
  description: `${description} Codes: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
  content: jsonContent(ErrorSchema),
  ...(headers ? { headers } : {}),
});

const retryAfter = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" as const } },
  RateLimit: {
    description: 'Remaining quota and seconds to reset, e.g. `"account-create";r=0;t=3599`.',
    schema: { type: "string" as const },
  },
  "RateLimit-Policy": {
    description: 'The quota, e.g. `"account-create";q=10;w=3600`.',
    schema: { type: "string" as const },
  },
};

const BODY_ERRORS = ["invalid_json", "invalid_body", "unknown_field"];

const responses = {
  unauthorized: errorResponse("Missing, malformed, unknown or revoked API key.", ["unauthorized"]),
  authRateLimited: errorResponse(
    "This client address sent too many bad API keys; this key is bad too. Good keys are never refused.",
    ["rate_limited"],
    retryAfter,
  ),
  tooLarge: errorResponse("The body is larger than the limit (64 KiB by default).", ["payload_too_large"]),
  unsupportedMedia: errorResponse("A non-empty body that is not JSON.", ["unsupported_media_type"]),
  unavailable: errorResponse("The database is briefly unreachable; retry shortly.", ["service_unavailable"]),
};

/** Responses every authenticated operation can give besides its own. */
const authed = (operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject => ({
  ...operation,
  security: [{ bearerAuth: [] }],
  responses: { ...operation.responses, "401": responses.unauthorized, "429": responses.authRateLimited },
});

const keyIdParam = z.object({
  id: z.string().regex(/^\d+$/).meta({ description: "The key's integer id, as listed by GET /keys." }),
});

export function buildOpenApiDocument() {
  return createDocument({
    openapi: "3.1.0",
    info: API_VERSION_INFO,
    servers: [{ url: "/api/v1", description: "This deployment" }],
    tags: [
      { name: "Account", description: "One call creates an account; no identity is asked for." },
      { name: "Keys", description: "API keys: Bearer credentials, shown once, stored only as hashes." },
      { name: "Catalog", description: "Plans, locations, OS images, prices and payment options." },
      { name: "Service", description: "Health and this document." },
    ],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "`Authorization: Bearer vpsk_...`. Keys never expire and carry the account's full rights.",
        },
      },
    },
    paths: {
      "/account": {
        post: {
          tags: ["Account"],
          operationId: "createAccount",
          summary: "Create an account",
          description:
            "Public. Send no body (or `{}`). Returns the first API key and the dashboard login token, each shown only " +
            "this once. Limited per client address (default 10 an hour); successful responses carry `RateLimit` headers.",
          responses: {
            "201": {
              description: "The account was created.",
              content: jsonContent(AccountCreatedSchema),
              headers: {
                RateLimit: retryAfter.RateLimit,
                "RateLimit-Policy": retryAfter["RateLimit-Policy"],
              },
            },
            "400": errorResponse("The body was not empty or `{}`.", BODY_ERRORS),
            "413": responses.tooLarge,
            "415": responses.unsupportedMedia,
            "429": errorResponse(
              "Too many accounts created from this client address.",
              ["rate_limited"],
              retryAfter,
            ),
            "503": responses.unavailable,
          },
        },
        get: authed({
          tags: ["Account"],
          operationId: "getAccount",
          summary: "The caller's account",
          responses: { "200": { description: "The account.", content: jsonContent(AccountSchema) } },
        }),
      },
      "/keys": {
        get: authed({
          tags: ["Keys"],
          operationId: "listKeys",
          summary: "List active API keys",
          description: "Active keys only, oldest first, each by its prefix; revoked keys are not listed.",
          responses: { "200": { description: "The keys.", content: jsonContent(ApiKeyListSchema) } },
        }),
        post: authed({
          tags: ["Keys"],
          operationId: "createKey",
          summary: "Create an API key",
          description: `The body is optional. The full key is in this response only. At most ${MAX_ACTIVE_KEYS} active keys per account.`,
          requestBody: { required: false, content: jsonContent(CreateKeyRequestSchema) },
          responses: {
            "201": { description: "The new key.", content: jsonContent(ApiKeyCreatedSchema) },
            "400": errorResponse("Bad body.", [...BODY_ERRORS, "invalid_name"]),
            "409": errorResponse(`The account already has ${MAX_ACTIVE_KEYS} active keys.`, [
              "key_limit_reached",
            ]),
            "413": responses.tooLarge,
            "415": responses.unsupportedMedia,
          },
        }),
      },
      "/keys/{id}": {
        delete: authed({
          tags: ["Keys"],
          operationId: "revokeKey",
          summary: "Revoke an API key",
          description:
            "Takes effect at once: the next request with that key gets 401. A key may revoke itself. " +
            "Ids of other accounts' keys, of revoked keys and non-integer ids answer 404.",
          requestParams: { path: keyIdParam },
          responses: {
            "200": { description: "The key is revoked.", content: jsonContent(RevokedKeySchema) },
            "404": errorResponse("No active key with that id on this account.", ["not_found"]),
          },
        }),
      },
      "/catalog": {
        get: {
          tags: ["Catalog"],
          operationId: "getCatalog",
          summary: "Plans, locations, OS images, prices and payment options",
          description: "Public. `pricing.prices` holds every plan x location price, computed by the rule.",
          responses: { "200": { description: "The catalog.", content: jsonContent(CatalogSchema) } },
        },
      },
      "/health": {
        get: {
          tags: ["Service"],
          operationId: "getHealth",
          summary: "Service health",
          description:
            "Public. 200 when the service and its database answer; 503 with the same body when not.",
          responses: {
            "200": { description: "Healthy.", content: jsonContent(HealthSchema) },
            "503": { description: "The database is unreachable.", content: jsonContent(HealthSchema) },
          },
        },
      },
      "/openapi.json": {
        get: {
          tags: ["Service"],
          operationId: "getOpenApi",
          summary: "This OpenAPI 3.1 document",
          responses: {
            "200": {
              description: "The document.",
              content: { "application/json": { schema: z.object({}) } },
            },
          },
        },
      },
    },
  });
}
