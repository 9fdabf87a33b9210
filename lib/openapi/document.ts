/**
 * The OpenAPI 3.1 description of API v1, generated from the same zod schemas the routes validate with.
 * Where the written spec leaves a detail open ("not shown"), the choice made here is the contract.
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponseObject } from "zod-openapi";
import { AccountCreatedSchema, AccountSchema } from "@/lib/schemas/account";
import { CatalogSchema } from "@/lib/schemas/catalog";
import { ErrorSchema, pageQuerySchema } from "@/lib/schemas/common";
import { HealthSchema } from "@/lib/schemas/health";
import {
  ApiKeyCreatedSchema,
  ApiKeyListSchema,
  CreateKeyRequestSchema,
  MAX_ACTIVE_KEYS,
  RevokedKeySchema,
} from "@/lib/schemas/keys";
import {
  CreateServerRequestSchema,
  CredentialsSchema,
  InsufficientBalanceSchema,
  SERVER_PAGE_DEFAULT,
  ServerActionRequestSchema,
  ServerCreatedSchema,
  ServerListSchema,
  ServerSchema,
  UpdateServerRequestSchema,
} from "@/lib/schemas/servers";
import {
  LoginTokenRotatedSchema,
  RevokedSessionSchema,
  RotateLoginTokenRequestSchema,
  SessionListSchema,
  SessionSchema,
  SignInRequestSchema,
  TotpCodeRequestSchema,
  TotpSetupSchema,
  TotpStateSchema,
} from "@/lib/schemas/sessions";
import {
  CreateTopupRequestSchema,
  SimulatePaymentRequestSchema,
  TOPUP_PAGE_DEFAULT,
  TopupListSchema,
  TopupSchema,
  X402RequirementsSchema,
} from "@/lib/schemas/topups";
import { MAX_PENDING_TOPUPS } from "@/lib/topups/limits";
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
  responses: {
    ...operation.responses,
    "401": responses.unauthorized,
    "429": operation.responses?.["429"] ?? responses.authRateLimited,
    // The key lookup and the bad-key limit need the database: while it restarts, 503 with Retry-After.
    "503": operation.responses?.["503"] ?? responses.unavailable,
  },
});

const topupRefParam = z.object({
  ref: z.string().meta({
    description: "The top-up's ref, as returned when it was created.",
    example: "tp_7k2m9q4xw3c8r5tz6yb1dqe3",
  }),
});

const idempotencyHeader = z.object({
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

const X402_ERRORS = [
  "payment_amount_mismatch",
  "payment_recipient_mismatch",
  "payment_network_mismatch",
  "payment_scheme_mismatch",
  "payment_requirements_mismatch",
  "payment_expired",
  "payment_not_yet_valid",
  "payment_validity_too_long",
  "invalid_payment_signature",
  "insufficient_funds",
  "payment_already_used",
  "payment_rejected",
  "payment_failed",
];

const serverIdParam = z.object({
  id: z.string().regex(/^\d+$/).meta({ description: "The server's integer id." }),
});

const serverNotFound = errorResponse("No server with that id on this account.", ["not_found"]);

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
      {
        name: "Sessions",
        description:
          "Dashboard sign-in: the login token (and a TOTP code when two-factor sign-in is on) is exchanged for a " +
          "session key, a Bearer key that expires after 7 days, is not listed by GET /keys, and is revoked by " +
          "sign-out. Sessions can be listed and revoked one by one; an account keeps at most " +
          "`MAX_SESSIONS_PER_ACCOUNT` (default 20) live sessions, a sign-in past that revokes the oldest. Rotating " +
          "the login token revokes every session at once. TOTP is RFC 6238 (SHA-1, 6 digits, 30 s) with one step " +
          "of drift either way; each code works once; wrong codes are limited per account and client address, " +
          "and more loosely per account.",
      },
      { name: "Catalog", description: "Plans, locations, OS images, prices and payment options." },
      {
        name: "Top-ups",
        description:
          "Fund the USD balance. Classic coins (BTC, XMR, ETH, LTC, USDTTRC, USDT) get a deposit address unique to " +
          "the top-up, derived from watch-only keys, an exact amount at a locked rate, a payment QR and an expiry. " +
          "USDC on Base is paid with x402 (v1): an EIP-3009 authorization settled gaslessly by the service. " +
          "States: `pending` -> `completed` once the confirmed payments cover the amount (the balance is credited " +
          "then, once); `pending` -> `expired` at `expires_at` when nothing is received or still confirming; " +
          "`pending` -> `cancelled` by the owner while nothing has arrived. No payment is ever lost: a partial " +
          "payment is credited for what it is worth at the locked rate as soon as it confirms, an overpayment " +
          "is credited in full, and payments that arrive after expiry or cancellation (watched for 7 days) are " +
          "credited too, completing the top-up when they cover it.",
      },
      {
        name: "Servers",
        description:
          "Order from the balance, in one transaction that cannot overdraw. Lifecycle: `provisioning` -> `active` " +
          "when the provisioner has built the server and assigned its IPv4 (the simulated provisioner takes " +
          "`PROVISION_DELAY_SECONDS`, default 15); `active` -> `suspended` at `expires_at` unless renewed (auto-renew " +
          "renews from the balance when it covers the price; otherwise the server is stopped and kept); " +
          "`suspended` -> `active` on renewal; `suspended` -> `terminated` at `terminates_at`, the expiry plus a grace " +
          "period of `SERVER_GRACE_DAYS` (default 7); any state -> `terminated` when the owner deletes it. " +
          "Terminated is final: the machine, its address and its password are gone. No refunds.",
      },
      {
        name: "Demo",
        description:
          "Only in demo mode (no production configuration): simulated payments, and a test clock when " +
          "`ENABLE_TEST_CLOCK=1`. Outside demo mode these paths answer 404.",
      },
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
            "this once. Limited per client address (default 10 an hour; on PostgreSQL counted across every instance); " +
            "successful responses carry `RateLimit` headers.",
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
      "/sessions": {
        post: {
          tags: ["Sessions"],
          operationId: "signIn",
          summary: "Sign in with the login token",
          description:
            "Public. Failed attempts are limited per client address (default 10 per 15 minutes, then 429); a valid " +
            "token always works.",
          requestBody: { required: true, content: jsonContent(SignInRequestSchema) },
          responses: {
            "201": { description: "The session.", content: jsonContent(SessionSchema) },
            "400": errorResponse("Bad body.", [...BODY_ERRORS, "invalid_login", "invalid_totp_code"]),
            "401": errorResponse("Wrong token, TOTP code missing, or wrong/used code.", [
              "invalid_login",
              "totp_required",
              "invalid_totp_code",
            ]),
            "429": errorResponse(
              "Too many failed sign-ins from this address, or wrong TOTP codes for this account from this address " +
                "(or from all addresses).",
              ["rate_limited"],
              retryAfter,
            ),
          },
        },
        get: authed({
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
        delete: authed({
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
        delete: authed({
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
        post: authed({
          tags: ["Sessions"],
          operationId: "rotateLoginToken",
          summary: "Replace the login token",
          description:
            "For a login token that leaked: returns a new one, shown only in this response; the old one stops " +
            "working at once and every dashboard session is revoked. With two-factor sign-in on, send a current " +
            "`totp_code`. Called with a session key (revoked too), the answer carries a new `session` to go on with.",
          requestBody: { required: false, content: jsonContent(RotateLoginTokenRequestSchema) },
          responses: {
            "200": { description: "The new login token.", content: jsonContent(LoginTokenRotatedSchema) },
            "400": errorResponse("Bad body, or the TOTP code is missing, wrong or used.", [
              ...BODY_ERRORS,
              "totp_required",
              "invalid_totp_code",
            ]),
          },
        }),
      },
      "/account/totp": {
        post: authed({
          tags: ["Sessions"],
          operationId: "beginTotpSetup",
          summary: "Start enabling two-factor sign-in",
          description: "A new secret (text, otpauth URI and QR); it takes effect once confirmed with a code.",
          responses: {
            "200": { description: "The pending secret.", content: jsonContent(TotpSetupSchema) },
            "409": errorResponse("Already enabled.", ["totp_already_enabled"]),
          },
        }),
      },
      "/account/totp/confirm": {
        post: authed({
          tags: ["Sessions"],
          operationId: "confirmTotp",
          summary: "Confirm and turn on two-factor sign-in",
          requestBody: { required: true, content: jsonContent(TotpCodeRequestSchema) },
          responses: {
            "200": { description: "On.", content: jsonContent(TotpStateSchema) },
            "400": errorResponse("Wrong or used code.", [...BODY_ERRORS, "invalid_totp_code"]),
            "409": errorResponse("No setup started, or already on.", [
              "totp_not_started",
              "totp_already_enabled",
            ]),
            "429": errorResponse("Too many code attempts on this account.", ["rate_limited"], retryAfter),
          },
        }),
      },
      "/account/totp/disable": {
        post: authed({
          tags: ["Sessions"],
          operationId: "disableTotp",
          summary: "Turn off two-factor sign-in (needs a current code)",
          requestBody: { required: true, content: jsonContent(TotpCodeRequestSchema) },
          responses: {
            "200": { description: "Off.", content: jsonContent(TotpStateSchema) },
            "400": errorResponse("Wrong or used code.", [...BODY_ERRORS, "invalid_totp_code"]),
            "409": errorResponse("Not on.", ["totp_not_enabled"]),
            "429": errorResponse("Too many code attempts on this account.", ["rate_limited"], retryAfter),
          },
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
      "/topups": {
        post: authed({
          tags: ["Top-ups"],
          operationId: "createTopup",
          summary: "Start a top-up",
          description:
            "`coin` defaults to `BTC`. A classic coin answers 201 with a pending Topup. `USDCBASE`, or the header " +
            "`X-Payment-Mode: x402`, answers 402 with the x402 challenge in both wire versions: the v1 body " +
            "(`X402Requirements`) and the v2 `PAYMENT-REQUIRED` header (base64 JSON `{x402Version: 2, error, " +
            'resource: {url, description, mimeType}, accepts: [{scheme, network: "eip155:8453", amount, asset, ' +
            "payTo, maxTimeoutSeconds, extra}]}`). Re-send the same request with `X-PAYMENT` (v1: base64 of " +
            "`{x402Version: 1, scheme, network, payload}`) or `PAYMENT-SIGNATURE` (v2: base64 of `{x402Version: 2, " +
            "accepted, payload}`, where `accepted` must equal the offered requirement) to pay: the authorization " +
            "must be for exactly the asked amount, to `payTo`, valid for at most `maxTimeoutSeconds`. The settled " +
            "request answers 201 with the completed Topup and the settlement header of its version " +
            "(`X-PAYMENT-RESPONSE` for v1, `PAYMENT-RESPONSE` for v2: base64 JSON `{success, transaction, network, " +
            "payer}`); the same authorization sent again by the same account, in either version, answers 200 with " +
            "the same top-up. One authorization credits at most once, whichever header carried it, exactly its own " +
            "transfer's value, also when one transaction used several authorizations. " +
            "Refused payment attempts are limited per account and per client address (`RATE_LIMIT_X402_ATTEMPTS`, " +
            "default 30 per 10 minutes; paid ones do not count). " +
            `At most ${MAX_PENDING_TOPUPS} pending deposit top-ups per account.`,
          requestParams: {
            header: idempotencyHeader.extend({
              "X-Payment-Mode": z
                .enum(["x402"])
                .optional()
                .meta({ description: "Pay with x402 (USDC on Base)." }),
              "X-PAYMENT": z
                .string()
                .optional()
                .meta({ description: "The signed x402 v1 payment (re-sent request)." }),
              "PAYMENT-SIGNATURE": z.string().optional().meta({
                description:
                  "The signed x402 v2 payment with `accepted` (re-sent request); not with X-PAYMENT.",
              }),
            }),
          },
          requestBody: { required: true, content: jsonContent(CreateTopupRequestSchema) },
          responses: {
            "200": {
              description: "This x402 payment was already settled for this account: the same top-up.",
              content: jsonContent(TopupSchema),
            },
            "201": {
              description: "The top-up: pending with its deposit details, or completed when paid with x402.",
              content: jsonContent(TopupSchema),
              headers: {
                "X-PAYMENT-RESPONSE": {
                  description:
                    'x402 v1 settlement: base64 JSON `{success, transaction, network: "base", payer}`.',
                  schema: { type: "string" as const },
                },
                "PAYMENT-RESPONSE": {
                  description:
                    'x402 v2 settlement: base64 JSON `{success, transaction, network: "eip155:8453", payer}`.',
                  schema: { type: "string" as const },
                },
              },
            },
            "400": errorResponse("Bad body or header.", [
              ...BODY_ERRORS,
              "amount_too_low",
              "amount_too_high",
              "invalid_amount",
              "invalid_coin",
              "coin_unavailable",
              "invalid_idempotency_key",
              "invalid_payment",
            ]),
            "402": {
              description:
                "x402: payment required (`payment_required`), or the payment was refused before any chain " +
                `transaction: ${X402_ERRORS.map((c) => `\`${c}\``).join(", ")}. The body (v1) and the ` +
                "`PAYMENT-REQUIRED` header (v2) always carry the requirements to sign afresh.",
              content: jsonContent(X402RequirementsSchema),
              headers: {
                "PAYMENT-REQUIRED": {
                  description:
                    "x402 v2 challenge: base64 JSON `{x402Version: 2, error, resource, accepts}` for the same offer.",
                  schema: { type: "string" as const },
                },
              },
            },
            "409": errorResponse(
              "Too many pending top-ups, this payment is being settled by another request (retry), it was used by " +
                "another account, or the Idempotency-Key's first request is still running.",
              [
                "too_many_pending_topups",
                "payment_in_progress",
                "payment_already_used",
                "idempotency_key_in_use",
              ],
            ),
            "413": responses.tooLarge,
            "415": responses.unsupportedMedia,
            "422": errorResponse("The Idempotency-Key was used with a different body.", [
              "idempotency_key_reused",
            ]),
            "429": errorResponse(
              "This client address sent too many bad API keys, or this account or client address made too many " +
                "refused x402 attempts (`RATE_LIMIT_X402_ATTEMPTS`); nothing was read on chain, charged or credited. " +
                "Retry after `Retry-After` seconds with the same X-PAYMENT.",
              ["rate_limited"],
              retryAfter,
            ),
            "503": errorResponse(
              "The rate source or the payment network is unreachable; nothing was charged. Retry (the same X-PAYMENT works).",
              ["rate_unavailable", "payment_network_unavailable", "service_unavailable"],
              { "Retry-After": retryAfter["Retry-After"] },
            ),
          },
        }),
        get: authed({
          tags: ["Top-ups"],
          operationId: "listTopups",
          summary: "List top-ups",
          description:
            `The account's top-ups, newest first, ${TOPUP_PAGE_DEFAULT} a page unless \`limit\` says otherwise. ` +
            "When `next_cursor` is not null, send it as `cursor` for the next (older) page.",
          requestParams: { query: pageQuerySchema(TOPUP_PAGE_DEFAULT) },
          responses: {
            "200": { description: "One page of top-ups.", content: jsonContent(TopupListSchema) },
            "400": errorResponse("A bad `limit` or `cursor`.", ["invalid_limit", "invalid_cursor"]),
          },
        }),
      },
      "/topups/{ref}": {
        get: authed({
          tags: ["Top-ups"],
          operationId: "getTopup",
          summary: "Poll a top-up",
          description:
            "The current state. Reading settles the top-up: a payment that reached its confirmations is credited " +
            "to the balance here (exactly once, however many polls run at once), and a pending top-up past " +
            "`expires_at` with nothing confirming becomes `expired`. Other accounts' refs answer 404.",
          requestParams: { path: topupRefParam },
          responses: {
            "200": { description: "The top-up.", content: jsonContent(TopupSchema) },
            "404": errorResponse("No top-up with that ref on this account.", ["not_found"]),
          },
        }),
      },
      "/topups/{ref}/cancel": {
        post: authed({
          tags: ["Top-ups"],
          operationId: "cancelTopup",
          summary: "Cancel a pending top-up",
          description:
            "Only while nothing has been received. The address stays watched: a payment sent anyway is still credited.",
          requestParams: { path: topupRefParam },
          responses: {
            "200": { description: "The cancelled top-up.", content: jsonContent(TopupSchema) },
            "404": errorResponse("No top-up with that ref on this account.", ["not_found"]),
            "409": errorResponse("The top-up is not pending, or a payment has arrived.", [
              "topup_not_pending",
              "payment_received",
            ]),
          },
        }),
      },
      "/servers": {
        post: authed({
          tags: ["Servers"],
          operationId: "createServer",
          summary: "Order a server",
          description:
            "Charges one cycle from the balance: `cycle` defaults to `monthly`; `annual` costs 10 x monthly. " +
            "`hostname` defaults to `<plan>-<location>-<6 random characters>`. `root_password` (10 to 128 printable " +
            "ASCII characters) is generated when omitted and then returned once as `root_password`. With an " +
            "Idempotency-Key a retried order charges once; a replayed answer omits `root_password` (read it from " +
            "/credentials). Some clients expect the server wrapped as `{server: {...}}`: this API answers with the " +
            "bare Server. `ssh_keys` (OpenSSH public keys) are installed for root. The server is placed on a host of " +
            "its location with room for it before anything is charged; the build runs as a job after the answer.",
          requestParams: { header: idempotencyHeader },
          requestBody: { required: true, content: jsonContent(CreateServerRequestSchema) },
          responses: {
            "201": { description: "The server, provisioning.", content: jsonContent(ServerCreatedSchema) },
            "400": errorResponse("Bad body.", [
              ...BODY_ERRORS,
              "invalid_plan",
              "invalid_location",
              "invalid_os",
              "invalid_cycle",
              "invalid_hostname",
              "invalid_root_password",
              "invalid_auto_renew",
              "invalid_ssh_key",
              "invalid_idempotency_key",
            ]),
            "402": {
              description:
                "The balance does not cover the price: `insufficient_balance` with the deficit in USD.",
              content: jsonContent(InsufficientBalanceSchema),
            },
            "409": errorResponse(
              "`out_of_capacity`: no host of the location has room for the plan; `os_unavailable`: this deployment " +
                "has no image for the OS (`available: false` in the catalog); `idempotency_key_in_use`: the key's " +
                "first request is still running. Nothing is charged.",
              ["out_of_capacity", "os_unavailable", "idempotency_key_in_use"],
            ),
            "413": responses.tooLarge,
            "415": responses.unsupportedMedia,
            "422": errorResponse("The Idempotency-Key was used with a different body.", [
              "idempotency_key_reused",
            ]),
          },
        }),
        get: authed({
          tags: ["Servers"],
          operationId: "listServers",
          summary: "List servers",
          description:
            `The account's servers, newest first and terminated ones included, ${SERVER_PAGE_DEFAULT} a page unless ` +
            "`limit` says otherwise. When `next_cursor` is not null, send it as `cursor` for the next (older) page.",
          requestParams: { query: pageQuerySchema(SERVER_PAGE_DEFAULT) },
          responses: {
            "200": { description: "One page of servers.", content: jsonContent(ServerListSchema) },
            "400": errorResponse("A bad `limit` or `cursor`.", ["invalid_limit", "invalid_cursor"]),
          },
        }),
      },
      "/servers/{id}": {
        get: authed({
          tags: ["Servers"],
          operationId: "getServer",
          summary: "A server",
          requestParams: { path: serverIdParam },
          responses: {
            "200": { description: "The server.", content: jsonContent(ServerSchema) },
            "404": serverNotFound,
          },
        }),
        patch: authed({
          tags: ["Servers"],
          operationId: "updateServer",
          summary: "Turn auto-renew on or off",
          requestParams: { path: serverIdParam },
          requestBody: { required: true, content: jsonContent(UpdateServerRequestSchema) },
          responses: {
            "200": { description: "The server.", content: jsonContent(ServerSchema) },
            "400": errorResponse("Bad body.", [...BODY_ERRORS, "invalid_auto_renew"]),
            "404": serverNotFound,
            "409": errorResponse("The server is terminated.", ["server_terminated"]),
          },
        }),
        delete: authed({
          tags: ["Servers"],
          operationId: "terminateServer",
          summary: "Terminate a server now",
          description:
            "Ends the server at once (address, capacity and credentials released) and removes the machine, its " +
            "domain and disks, in the background; the unused time is not refunded.",
          requestParams: { path: serverIdParam },
          responses: {
            "200": { description: "The terminated server.", content: jsonContent(ServerSchema) },
            "404": serverNotFound,
            "409": errorResponse("Already terminated.", ["server_terminated"]),
          },
        }),
      },
      "/servers/{id}/credentials": {
        get: authed({
          tags: ["Servers"],
          operationId: "getServerCredentials",
          summary: "Reveal the root login",
          description: "Decrypted on request; sent with `Cache-Control: no-store`.",
          requestParams: { path: serverIdParam },
          responses: {
            "200": { description: "The credentials.", content: jsonContent(CredentialsSchema) },
            "404": serverNotFound,
            "409": errorResponse("The server is terminated; its credentials are gone.", [
              "server_terminated",
            ]),
          },
        }),
      },
      "/servers/{id}/renew": {
        post: authed({
          tags: ["Servers"],
          operationId: "renewServer",
          summary: "Renew for one more cycle",
          description:
            "Charges the price from the balance and extends `expires_at` by one cycle (from now for a suspended " +
            "server, which becomes active again). Accepts an Idempotency-Key.",
          requestParams: { path: serverIdParam, header: idempotencyHeader },
          responses: {
            "200": { description: "The renewed server.", content: jsonContent(ServerSchema) },
            "402": {
              description: "The balance does not cover the price.",
              content: jsonContent(InsufficientBalanceSchema),
            },
            "404": serverNotFound,
            "409": errorResponse("The server is terminated.", ["server_terminated"]),
          },
        }),
      },
      "/servers/{id}/actions": {
        post: authed({
          tags: ["Servers"],
          operationId: "serverPowerAction",
          summary: "Start, stop or reboot",
          description:
            "Performed on the host before the answer: `stop` is an ACPI shutdown, forced off after the stop timeout; " +
            "`power_state` is what the host then reports.",
          requestParams: { path: serverIdParam },
          requestBody: { required: true, content: jsonContent(ServerActionRequestSchema) },
          responses: {
            "200": {
              description: "The server with its new `power_state`.",
              content: jsonContent(ServerSchema),
            },
            "400": errorResponse("Bad body.", [...BODY_ERRORS, "invalid_action"]),
            "404": serverNotFound,
            "409": errorResponse("Only an active server can be powered.", ["server_not_active"]),
          },
        }),
      },
      "/demo/topups/{ref}/pay": {
        post: authed({
          tags: ["Demo"],
          operationId: "simulateTopupPayment",
          summary: "Simulate a payment (demo mode only)",
          description:
            "Pretends `amount` (default: exactly `deposit_amount`) was sent to the top-up's address. The demo watcher " +
            "then adds one confirmation per poll. Only for networks the demo watcher covers.",
          requestParams: { path: topupRefParam },
          requestBody: { required: false, content: jsonContent(SimulatePaymentRequestSchema) },
          responses: {
            "200": { description: "The top-up with the payment seen.", content: jsonContent(TopupSchema) },
            "400": errorResponse("Bad amount.", [...BODY_ERRORS, "invalid_amount"]),
            "404": errorResponse("Not in demo mode, or no such top-up on this account.", ["not_found"]),
            "409": errorResponse("This top-up's network is watched on a real chain.", ["not_simulated"]),
          },
        }),
      },
      "/demo/clock": {
        post: {
          tags: ["Demo"],
          operationId: "advanceTestClock",
          summary: "Move the business clock forward (demo mode with ENABLE_TEST_CLOCK=1 only)",
          requestBody: {
            required: true,
            content: jsonContent(z.strictObject({ advance_seconds: z.int().min(1) })),
          },
          responses: {
            "200": { description: "The new time.", content: jsonContent(z.object({ now: z.string() })) },
            "404": errorResponse("The test clock is not enabled.", ["not_found"]),
          },
        },
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
            "Public. 200 when the service and its database answer; 503 with the same body when not. " +
            "`watchers` shows each deposit watcher's node (reachable, tip, cursor, lag); a coin whose node is " +
            "unreachable answers `coin_unavailable` to new top-ups until it is back.",
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
