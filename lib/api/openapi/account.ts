import type { ZodOpenApiPathsObject } from "zod-openapi";
import { AccountCreatedSchema, AccountSchema } from "@/lib/api/schemas/account";
import { EmptyBody } from "@/lib/api/schemas/common";
import {
  authed,
  bodyErrors,
  DEFAULTS,
  errorResponse,
  jsonContent,
  perWindow,
  publicOperation,
  responses,
  retryAfter,
} from "./shared";
export const accountTag = {
  name: "Account",
  description: "One call creates an account; no identity is asked for.",
};

export const accountPaths: ZodOpenApiPathsObject = {
  "/account": {
    post: publicOperation({
      tags: ["Account"],
      operationId: "createAccount",
      summary: "Create an account",
      description:
        "Public. Send no body (or `{}`). Returns the first API key and the dashboard login token, each shown only " +
        "this once. Limited per client address (default " +
        perWindow(DEFAULTS.RATE_LIMIT_ACCOUNT_CREATE) +
        "; on PostgreSQL counted across every instance); successful responses carry `RateLimit` headers.",
      responses: {
        "201": {
          description: "The account was created.",
          content: jsonContent(AccountCreatedSchema),
          headers: {
            RateLimit: retryAfter.RateLimit,
            "RateLimit-Policy": retryAfter["RateLimit-Policy"],
          },
        },
        "400": bodyErrors("The body was not empty or `{}`.", EmptyBody),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
        "429": errorResponse(
          "Too many accounts created from this client address.",
          ["rate_limited"],
          retryAfter,
        ),
        "503": responses.unavailable,
      },
    }),
    get: authed("account:read", {
      tags: ["Account"],
      operationId: "getAccount",
      summary: "The caller's account",
      responses: { "200": { description: "The account.", content: jsonContent(AccountSchema) } },
    }),
  },
};
