/** The OpenAPI operations of top-ups: deposits and x402. */

import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import type { ErrorCode } from "@/lib/api/error-codes";
import { EmptyBody, pageQuerySchema } from "@/lib/api/schemas/common";
import {
  CreateTopupBody,
  TOPUP_PAGE_DEFAULT,
  TopupListSchema,
  TopupSchema,
  X402RequirementsSchema,
} from "@/lib/api/schemas/topups";
import { DEPOSIT_COINS } from "@/lib/rails/registry";
import { MAX_PENDING_TOPUPS } from "@/lib/topups/limits";
import {
  authed,
  bodyErrors,
  DEFAULTS,
  errorResponse,
  idempotencyHeader,
  jsonContent,
  jsonRequest,
  perWindow,
  responses,
  retryAfter,
  topupRefParam,
} from "./shared";

const X402_ERRORS: ErrorCode[] = [
  "payment_amount_mismatch",
  "payment_recipient_mismatch",
  "payment_network_mismatch",
  "payment_scheme_mismatch",
  "payment_requirements_mismatch",
  "payment_expired",
  "payment_not_yet_valid",
  "payment_validity_too_long",
  "invalid_payment_signature",
  "payment_wallet_not_deployed",
  "insufficient_funds",
  "payment_already_used",
  "payment_rejected",
  "payment_failed",
];

export const topupsTag = {
  name: "Top-ups",
  description:
    `Fund the USD balance. Classic coins (${Object.keys(DEPOSIT_COINS).join(", ")}) get a deposit address unique to ` +
    "the top-up, derived from watch-only keys, an exact amount at a locked rate, a payment QR and an expiry. " +
    "USDC on Base is paid with x402 (v1): an EIP-3009 authorization settled gaslessly by the service. " +
    "States: `pending` -> `completed` once the confirmed payments cover the amount (the balance is credited " +
    "then, once); `pending` -> `expired` at `expires_at` when nothing is received or still confirming; " +
    "`pending` -> `cancelled` by the owner while nothing has arrived. No payment is ever lost: a partial " +
    "payment is credited for what it is worth at the locked rate as soon as it confirms, an overpayment " +
    "is credited in full, and payments that arrive after expiry or cancellation (watched for " +
    DEFAULTS.LATE_PAYMENT_WINDOW_HOURS / 24 +
    " days) are " +
    "credited too, completing the top-up when they cover it. The locked rate holds for the asked amount paid " +
    "before `expires_at`; coins beyond it, or paid after the quote ended, are valued at the lower of the " +
    "locked rate and the market rate when they are credited. Each payment shows its `credited_parts`.",
};

export const topupsPaths: ZodOpenApiPathsObject = {
  "/topups": {
    post: authed("topups:write", {
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
        "default " +
        perWindow(DEFAULTS.RATE_LIMIT_X402_ATTEMPTS) +
        "; paid ones do not count). " +
        `At most ${MAX_PENDING_TOPUPS} pending deposit top-ups per account (409), and at most ` +
        `${DEFAULTS.RATE_LIMIT_DEPOSIT_TOPUPS.limit} deposit top-ups created per account in any ` +
        `${DEFAULTS.RATE_LIMIT_DEPOSIT_TOPUPS.windowSeconds / 3600} hours, whatever became of them ` +
        "(`RATE_LIMIT_DEPOSIT_TOPUPS`; 429 `too_many_topups` with `Retry-After` until the oldest of them leaves " +
        "the window): each one keeps its address watched for late payments.",
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
            description: "The signed x402 v2 payment with `accepted` (re-sent request); not with X-PAYMENT.",
          }),
        }),
      },
      requestBody: jsonRequest(CreateTopupBody),
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
        "400": bodyErrors("Bad body or header.", CreateTopupBody, [
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
            "another account, it was used on chain without this service claiming it first " +
            "(`payment_settled_elsewhere`: it credits no account), its settlement was never recorded and the " +
            "operator credited it by a ledger adjustment (`payment_settled_by_operator`: credited once, there), " +
            "or the Idempotency-Key's first request is still running.",
          [
            "too_many_pending_topups",
            "payment_in_progress",
            "payment_already_used",
            "payment_settled_elsewhere",
            "payment_settled_by_operator",
            "idempotency_key_in_use",
          ],
        ),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
        "422": responses.idempotencyKeyReused,
        "429": errorResponse(
          "This client address sent too many bad API keys, or this account or client address made too many " +
            "refused x402 attempts (`RATE_LIMIT_X402_ATTEMPTS`; nothing was read on chain, charged or credited: " +
            "retry after `Retry-After` seconds with the same X-PAYMENT), or this account made as many deposit " +
            "top-ups in the window as it may (`too_many_topups`, `RATE_LIMIT_DEPOSIT_TOPUPS`; nothing was " +
            "created).",
          ["rate_limited", "too_many_topups"],
          retryAfter,
        ),
        "503": errorResponse(
          "The rate source or the payment network is unreachable, or a settlement was sent but is not yet seen on " +
            "chain (`payment_pending`); nothing was charged or credited. Retry (the same X-PAYMENT works).",
          ["rate_unavailable", "payment_network_unavailable", "payment_pending", "service_unavailable"],
          { "Retry-After": retryAfter["Retry-After"] },
        ),
      },
    }),
    get: authed("topups:read", {
      tags: ["Top-ups"],
      operationId: "listTopups",
      summary: "List top-ups",
      description:
        `The account's top-ups, newest first, ${TOPUP_PAGE_DEFAULT} a page unless \`limit\` says otherwise. ` +
        "When `next_cursor` is not null, send it as `cursor` for the next (older) page.",
      requestParams: { query: pageQuerySchema(TOPUP_PAGE_DEFAULT) },
      responses: {
        "200": { description: "One page of top-ups.", content: jsonContent(TopupListSchema) },
        "400": responses.badPage,
      },
    }),
  },
  "/topups/{ref}": {
    get: authed("topups:read", {
      tags: ["Top-ups"],
      operationId: "getTopup",
      summary: "Poll a top-up",
      description:
        "The current state. Reading settles the top-up: a payment that reached its confirmations is credited " +
        "to the balance here (exactly once, however many polls run at once; its `credited_usd` and " +
        "`credited_parts` say how), and a pending top-up past `expires_at` with nothing confirming becomes " +
        "`expired`. Other accounts' refs answer 404.",
      requestParams: { path: topupRefParam },
      responses: {
        "200": { description: "The top-up.", content: jsonContent(TopupSchema) },
        "404": errorResponse("No top-up with that ref on this account.", ["not_found"]),
      },
    }),
  },
  "/topups/{ref}/cancel": {
    post: authed("topups:write", {
      tags: ["Top-ups"],
      operationId: "cancelTopup",
      summary: "Cancel a pending top-up",
      description:
        "Only while nothing has been received. The quote ends (`expires_at` becomes now); the address stays " +
        "watched: a payment sent anyway is still credited, as a late one.",
      requestParams: { path: topupRefParam },
      responses: {
        "200": { description: "The cancelled top-up.", content: jsonContent(TopupSchema) },
        "400": bodyErrors("The body was not empty or `{}`.", EmptyBody),
        "404": errorResponse("No top-up with that ref on this account.", ["not_found"]),
        "409": errorResponse("The top-up is not pending, or a payment has arrived.", [
          "topup_not_pending",
          "payment_received",
        ]),
      },
    }),
  },
};
