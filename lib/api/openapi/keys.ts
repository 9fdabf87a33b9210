/** The OpenAPI operations of API keys. */
import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  BeyondKeyRightsSchema,
  CreateKeyBody,
  CurrentKeySchema,
  KeyRefusalSchema,
  MAX_ACTIVE_KEYS,
  RevokedKeySchema,
} from "@/lib/api/schemas/keys";
import { ANY_KEY } from "@/lib/api/scopes";
import { authed, bodyErrors, errorResponse, jsonContent, jsonRequest, responses, retryAfter } from "./shared";

const keyIdParam = z.object({
  id: z.string().regex(/^\d+$/).meta({ description: "The key's integer id, as listed by GET /keys." }),
});

export const keysTag = {
  name: "Keys",
  description:
    "API keys: Bearer credentials, shown once, stored only as hashes. A key holds scopes (what it may do) and " +
    "may be limited further: an expiry, client networks, a list of servers, a spend cap. The service checks " +
    "them on every request, whoever holds the key; the Keys guide lists the scopes.",
};

export const keysPaths: ZodOpenApiPathsObject = {
  "/keys": {
    get: authed("keys:read", {
      tags: ["Keys"],
      operationId: "listKeys",
      summary: "List active API keys",
      description:
        "Active keys only, oldest first, each by its prefix with its scopes, conditions, spend cap and what is " +
        "spent of it; revoked and expired-and-revoked keys are not listed (an expired key stays listed until " +
        "revoked, so its `expires_at` tells why it stopped).",
      responses: { "200": { description: "The keys.", content: jsonContent(ApiKeyListSchema) } },
    }),
    post: authed("keys:write", {
      tags: ["Keys"],
      operationId: "createKey",
      summary: "Create an API key",
      description:
        `The body is optional. The full key is in this response only. At most ${MAX_ACTIVE_KEYS} active keys per ` +
        "account. Without `scopes` and conditions the key has the rights of the key making the request (every " +
        "right when made from the dashboard or with a key that holds them all). A key can make keys only within " +
        "its own rights: scopes it holds, an expiry no later than its own, networks inside its own, servers " +
        "among its own, and a spend cap no larger than what is left of its own (the new key's spending counts " +
        "against its cap too). Made with a dashboard session key on an account with two-factor sign-in on, it " +
        "takes a current `totp_code` (or a `recovery_code`): a session expires and dies with the login token, a " +
        "key does not. API keys are asked for no code: they cannot make a key with more than they have.",
      requestBody: jsonRequest(CreateKeyBody, { required: false }),
      responses: {
        "201": { description: "The new key.", content: jsonContent(ApiKeyCreatedSchema) },
        "400": bodyErrors(
          "Bad body (an `expires_at` in the past, a CIDR with host bits set, a server id not of this account, " +
            "...), or (from a session, with TOTP on) the code is missing, wrong or used.",
          CreateKeyBody,
          ["totp_required"],
        ),
        "403": {
          ...errorResponse(
            "The new key would have more than the key making the request: a scope it does not hold, a later " +
              "expiry, networks outside its own, servers outside its own, or a larger cap than it has left " +
              "(`field` names which).",
            ["beyond_key_rights"],
          ),
          content: jsonContent(z.union([KeyRefusalSchema, BeyondKeyRightsSchema])),
        },
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
  "/keys/current": {
    get: authed(ANY_KEY, {
      tags: ["Keys"],
      operationId: "getCurrentKey",
      summary: "The key this request is made with",
      description:
        "What the calling key is: its scopes, expiry, networks, servers, spend cap with what is spent and when " +
        "it resets, how much it may still spend, and its last use and where from. Any key may ask, whatever " +
        "its scopes (a dashboard session key answers with `kind: session` and every scope).",
      responses: { "200": { description: "The key.", content: jsonContent(CurrentKeySchema) } },
    }),
  },
  "/keys/{id}": {
    delete: authed("keys:write", {
      tags: ["Keys"],
      operationId: "revokeKey",
      summary: "Revoke an API key",
      description:
        "Takes effect at once: the next request with that key gets 401. The keys it made (and those they made) " +
        "are revoked with it (`also_revoked`). A key may revoke itself. A key that does not hold every scope " +
        "may revoke only itself and the keys it made. Ids of other accounts' keys, of revoked keys and " +
        "non-integer ids answer 404.",
      requestParams: { path: keyIdParam },
      responses: {
        "200": { description: "The key is revoked.", content: jsonContent(RevokedKeySchema) },
        "403": errorResponse("A key that does not hold every scope, revoking a key it did not make.", [
          "beyond_key_rights",
        ]),
        "404": errorResponse("No active key with that id on this account.", ["not_found"]),
      },
    }),
  },
};
