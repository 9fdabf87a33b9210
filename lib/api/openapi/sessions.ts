/** The OpenAPI operations of dashboard sign-in: sessions, the login token and TOTP. */

import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { RECOVERY_CODE_BITS, RECOVERY_CODE_COUNT } from "@/lib/accounts/credentials";
import { SESSION_KEY_TTL_SECONDS } from "@/lib/accounts/session-ttl";
import type { RequestBody } from "@/lib/api/request-body";
import { EmptyBody } from "@/lib/api/schemas/common";
import {
  DisableTotpBody,
  LoginTokenRotatedSchema,
  RecoveryCodeStatusSchema,
  RecoveryCodesSchema,
  RevokedSessionSchema,
  RotateLoginTokenBody,
  SecondFactorBody,
  SessionListSchema,
  SessionSchema,
  SignInBody,
  TotpCodeBody,
  TotpEnabledSchema,
  TotpSetupSchema,
  TotpStateSchema,
} from "@/lib/api/schemas/sessions";
import { ANY_KEY } from "@/lib/api/scopes";
import {
  authed,
  bodyErrors,
  DEFAULTS,
  errorResponse,
  jsonContent,
  jsonRequest,
  perWindow,
  publicOperation,
  retryAfter,
} from "./shared";
export const sessionsTag = {
  name: "Sessions",
  description:
    "Dashboard sign-in: the login token (and a TOTP code when two-factor sign-in is on) is exchanged for a " +
    "session key, a Bearer key that expires after " +
    SESSION_KEY_TTL_SECONDS / 86_400 +
    " days, is not listed by GET /keys, and is revoked by " +
    "sign-out. Sessions can be listed and revoked one by one; an account keeps at most " +
    "`MAX_SESSIONS_PER_ACCOUNT` (default " +
    DEFAULTS.MAX_SESSIONS_PER_ACCOUNT +
    ") live sessions, a sign-in past that revokes the oldest. Rotating " +
    "the login token revokes every session at once. TOTP is RFC 6238 (SHA-1, 6 digits, 30 s) with one step " +
    "of drift either way; each code works once; wrong codes are limited per account and client address " +
    `(default ${perWindow(DEFAULTS.RATE_LIMIT_TOTP_FAILURES)}), and more loosely per account ` +
    `(${perWindow(DEFAULTS.RATE_LIMIT_TOTP_ACCOUNT_FAILURES)}, which refuses right codes too once reached). ` +
    `Turning TOTP on makes ${RECOVERY_CODE_COUNT} recovery codes (${RECOVERY_CODE_BITS} random bits each), ` +
    "shown once, each usable once wherever a TOTP code is asked (`recovery_code`), also while TOTP codes are " +
    "throttled: wrong recovery codes are limited per account and client address only " +
    `(default ${perWindow(DEFAULTS.RATE_LIMIT_RECOVERY_FAILURES)}), so nobody can use up the owner's.`,
};

/** A second factor (where one is asked for) refused, or a bad body. */
const secondFactorRefused = <T>(body: RequestBody<T>) =>
  bodyErrors(
    "Bad body, or the second factor is missing, wrong or used, or both a TOTP code and a recovery code were sent.",
    body,
    ["totp_required"],
  );

const recoveryRateLimited = errorResponse(
  "Too many wrong codes: TOTP codes from this address or on this account, or recovery codes from this address.",
  ["rate_limited"],
  retryAfter,
);

export const sessionsPaths: ZodOpenApiPathsObject = {
  "/sessions": {
    post: publicOperation({
      tags: ["Sessions"],
      operationId: "signIn",
      summary: "Sign in with the login token",
      description:
        "Public. Failed attempts are limited per client address (default " +
        perWindow(DEFAULTS.RATE_LIMIT_LOGIN_FAILURES) +
        ", then 429); a valid " +
        "token always works.",
      requestBody: jsonRequest(SignInBody),
      responses: {
        "201": { description: "The session.", content: jsonContent(SessionSchema) },
        "400": bodyErrors("Bad body, or both a TOTP code and a recovery code.", SignInBody),
        "401": errorResponse("Wrong token, second factor missing, or a wrong/used TOTP or recovery code.", [
          "invalid_login",
          "totp_required",
          "invalid_totp_code",
          "invalid_recovery_code",
        ]),
        "429": errorResponse(
          "Too many failed sign-ins from this address, wrong TOTP codes for this account from this address " +
            "(or from all addresses), or wrong recovery codes for this account from this address.",
          ["rate_limited"],
          retryAfter,
        ),
      },
    }),
    get: authed("account:read", {
      tags: ["Sessions"],
      operationId: "listSessions",
      summary: "List live dashboard sessions",
      description:
        "The account's sessions that still work, newest first, never their keys; `current` marks the one this " +
        "request was made with. Any key of the account may list them.",
      responses: { "200": { description: "The sessions.", content: jsonContent(SessionListSchema) } },
    }),
  },
  "/sessions/{id}": {
    delete: authed("account:write", {
      tags: ["Sessions"],
      operationId: "revokeSession",
      summary: "Revoke a dashboard session",
      description: "Its key fails from the next request on. Revoking the current session signs it out.",
      requestParams: {
        path: z.object({
          id: z
            .string()
            .regex(/^\d+$/)
            .meta({ description: "The session's id, as listed by GET /sessions." }),
        }),
      },
      responses: {
        "200": { description: "Revoked.", content: jsonContent(RevokedSessionSchema) },
        "404": errorResponse("No live session with that id on this account.", ["not_found"]),
      },
    }),
  },
  "/sessions/current": {
    delete: authed(ANY_KEY, {
      tags: ["Sessions"],
      operationId: "signOut",
      summary: "Sign out",
      description: "Revokes the session key this request carries; it fails from the next request on.",
      responses: {
        "200": {
          description: "Signed out.",
          content: jsonContent(z.object({ signed_out: z.literal(true) })),
        },
        "409": errorResponse("The key is an API key, not a session key.", ["not_a_session"]),
      },
    }),
  },
  "/account/login-token": {
    post: authed("account:write", {
      tags: ["Sessions"],
      operationId: "rotateLoginToken",
      summary: "Replace the login token",
      description:
        "For a login token that leaked: returns a new one, shown only in this response; the old one stops " +
        "working at once and every dashboard session is revoked. With two-factor sign-in on, send a current " +
        "`totp_code` or a `recovery_code` (which works while TOTP codes are throttled; afterwards the " +
        "account-wide TOTP throttle is lifted). Called with a session key (revoked too), the answer carries a " +
        "new `session` to go on with. With `revoke_api_keys: true` the account's API keys are revoked too, " +
        "except the key making the request (from a session: every API key); by default they are kept.",
      requestBody: jsonRequest(RotateLoginTokenBody, { required: false }),
      responses: {
        "200": { description: "The new login token.", content: jsonContent(LoginTokenRotatedSchema) },
        "400": secondFactorRefused(RotateLoginTokenBody),
        "403": errorResponse(
          "A key with fewer rights than the account's own (some scopes, or an expiry, networks, servers or a " +
            "cap): the new token would sign into the dashboard with every right.",
          ["beyond_key_rights"],
        ),
        "429": recoveryRateLimited,
      },
    }),
  },
  "/account/totp": {
    post: authed("account:write", {
      tags: ["Sessions"],
      operationId: "beginTotpSetup",
      summary: "Start enabling two-factor sign-in",
      description: "A new secret (text, otpauth URI and QR); it takes effect once confirmed with a code.",
      responses: {
        "200": { description: "The pending secret.", content: jsonContent(TotpSetupSchema) },
        "400": bodyErrors("The body was not empty or `{}`.", EmptyBody),
        "409": errorResponse("Already enabled.", ["totp_already_enabled"]),
      },
    }),
  },
  "/account/totp/confirm": {
    post: authed("account:write", {
      tags: ["Sessions"],
      operationId: "confirmTotp",
      summary: "Confirm and turn on two-factor sign-in",
      description:
        `The answer holds the account's ${RECOVERY_CODE_COUNT} recovery codes, shown only here (stored as salted ` +
        "scrypt hashes): save them.",
      requestBody: jsonRequest(TotpCodeBody),
      responses: {
        "200": { description: "On, with the recovery codes.", content: jsonContent(TotpEnabledSchema) },
        "400": bodyErrors("Wrong or used code.", TotpCodeBody),
        "409": errorResponse("No setup started, or already on.", [
          "totp_not_started",
          "totp_already_enabled",
        ]),
        "429": errorResponse("Too many code attempts on this account.", ["rate_limited"], retryAfter),
      },
    }),
  },
  "/account/totp/disable": {
    post: authed("account:write", {
      tags: ["Sessions"],
      operationId: "disableTotp",
      summary: "Turn off two-factor sign-in (needs a current code or a recovery code)",
      description: "Send `code` or `recovery_code`. The recovery codes are deleted with the secret.",
      requestBody: jsonRequest(DisableTotpBody),
      responses: {
        "200": { description: "Off.", content: jsonContent(TotpStateSchema) },
        "400": secondFactorRefused(DisableTotpBody),
        "409": errorResponse("Not on.", ["totp_not_enabled"]),
        "429": recoveryRateLimited,
      },
    }),
  },
  "/account/recovery-codes": {
    get: authed("account:read", {
      tags: ["Sessions"],
      operationId: "getRecoveryCodeStatus",
      summary: "How many recovery codes are left",
      description: "Never the codes themselves: they are shown only when made.",
      responses: { "200": { description: "The count.", content: jsonContent(RecoveryCodeStatusSchema) } },
    }),
    post: authed("account:write", {
      tags: ["Sessions"],
      operationId: "regenerateRecoveryCodes",
      summary: "Replace the recovery codes",
      description:
        `A new set of ${RECOVERY_CODE_COUNT} codes, shown only in this response; the old set stops working at ` +
        "once. Takes a current `totp_code` or one of the old `recovery_code`s.",
      requestBody: jsonRequest(SecondFactorBody),
      responses: {
        "200": { description: "The new codes.", content: jsonContent(RecoveryCodesSchema) },
        "400": secondFactorRefused(SecondFactorBody),
        "409": errorResponse("Two-factor sign-in is not on.", ["totp_not_enabled"]),
        "429": recoveryRateLimited,
      },
    }),
  },
};
