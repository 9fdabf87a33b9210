/** The OpenAPI operations of API keys. */
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  CreateKeyBody,
  MAX_ACTIVE_KEYS,
  RevokedKeySchema,
} from "@/lib/api/schemas/keys";
import { authed, bodyErrors, errorResponse, jsonContent, jsonRequest, responses, retryAfter } from "./shared";

const keyIdParam = z.object({
  id: z.string().regex(/^\d+$/).meta({ description: "The key's integer id, as listed by GET /keys." }),
});

export const keysTag = {
  name: "Keys",
  description: "API keys: Bearer credentials, shown once, stored only as hashes.",
};

export const keysPaths: ZodOpenApiPathsObject = {
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
      description:
        `The body is optional. The full key is in this response only. At most ${MAX_ACTIVE_KEYS} active keys per ` +
        "account. Made with a dashboard session key on an account with two-factor sign-in on, it takes a current " +
        "`totp_code` (or a `recovery_code`): a session expires and dies with the login token, a key does not. " +
        "API keys are asked for no code: they already hold every power a new key would have.",
      requestBody: jsonRequest(CreateKeyBody, { required: false }),
      responses: {
        "201": { description: "The new key.", content: jsonContent(ApiKeyCreatedSchema) },
        "400": bodyErrors(
          "Bad body, or (from a session, with TOTP on) the code is missing, wrong or used.",
          CreateKeyBody,
          ["totp_required"],
        ),
        "409": errorResponse(`The account already has ${MAX_ACTIVE_KEYS} active keys.`, [
          "key_limit_reached",
        ]),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
        "429": errorResponse(
          "Too many wrong codes (from a session), or too many bad API keys from this address.",
          ["rate_limited"],
          retryAfter,
        ),
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
};
