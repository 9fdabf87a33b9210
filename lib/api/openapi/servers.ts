/** The OpenAPI operations of servers: order, manage, renew, power. */

import { z } from "zod";
import type { ZodOpenApiPathsObject } from "zod-openapi";
import type { ErrorCode } from "@/lib/api/error-codes";
import { EmptyBody, ErrorSchema, pageQuerySchema } from "@/lib/api/schemas/common";
import { SpendCapExceededSchema } from "@/lib/api/schemas/keys";
import { ServerBusySchema } from "@/lib/api/schemas/server-machine";
import {
  CreateServerBody,
  CredentialsSchema,
  InsufficientBalanceOfferSchema,
  InsufficientBalanceSchema,
  SERVER_PAGE_DEFAULT,
  ServerActionBody,
  ServerCreatedSchema,
  ServerListSchema,
  ServerSchema,
  UpdateServerBody,
} from "@/lib/api/schemas/servers";
import { X402RequirementsSchema } from "@/lib/api/schemas/topups";
import {
  authed,
  bodyErrors,
  DEFAULTS,
  errorResponse,
  hostOperationLimited,
  idempotencyHeader,
  jsonContent,
  jsonRequest,
  responses,
} from "./shared";

export const serverIdParam = z.object({
  id: z.string().regex(/^\d+$/).meta({ description: "The server's integer id." }),
});

export const serverNotFound = errorResponse("No server with that id on this account.", ["not_found"]);

/** A 409 of an operation on the host: `server_busy` (with what runs and since when) or the operation's own codes. */
export const hostOperationConflict = (description: string, codes: ErrorCode[]) => ({
  description:
    `${description} \`server_busy\`: the server is running another host operation (a power action, a root ` +
    "password change, a reinstall, its build): the answer names it (`operation`) and when it was asked for " +
    `(\`since\`); nothing is done or queued. Codes: ${[...codes, "server_busy"].map((c) => `\`${c}\``).join(", ")}.`,
  content: jsonContent(z.union([ServerBusySchema, ErrorSchema])),
});

/**
 * The 402 of an operation that debits the balance: too little balance, or the key's spend cap (or that of a
 * key above it) would be passed. Either way nothing is charged.
 */
const paymentRefused = (balance: string) => ({
  description:
    `${balance} Or \`spend_cap_exceeded\`: the debit would pass the spend cap of the key used (or of a key ` +
    "above it), with `cap`, `spent` this period, `price`, `resets_at` and the capping key (`cap_key_id`). " +
    "Nothing is charged. A key without `billing:spend` is refused before this (`403 missing_scope`).",
  content: jsonContent(z.union([InsufficientBalanceSchema, SpendCapExceededSchema])),
});

/** The payment headers of a purchase the 402 offered to pay with x402. */
const x402PaymentHeaders = (what: string) => ({
  "X-PAYMENT": z
    .string()
    .optional()
    .meta({ description: `The signed x402 v1 payment for the ${what} (re-sent request).` }),
  "PAYMENT-SIGNATURE": z.string().optional().meta({
    description: "The signed x402 v2 payment with `accepted` (re-sent request); not with X-PAYMENT.",
  }),
});

/** A purchase's 402: the balance short (with the x402 offer), a payment refused, or a key's spend cap. */
const offeredPayment = (balance: string) => ({
  ...paymentRefused(balance),
  content: jsonContent(
    z.union([InsufficientBalanceOfferSchema, X402RequirementsSchema, SpendCapExceededSchema]),
  ),
});

export const serversTag = {
  name: "Servers",
  description:
    "Order from the balance, in one transaction that cannot overdraw. Lifecycle: `provisioning` -> `active` " +
    "when the provisioner has built the server and assigned its IPv4 (the simulated provisioner takes " +
    "`PROVISION_DELAY_SECONDS`, default " +
    DEFAULTS.PROVISION_DELAY_SECONDS +
    "); `active` -> `suspended` at `expires_at` unless renewed (auto-renew " +
    "renews from the balance when it covers the price; otherwise the server is stopped and kept); " +
    "`suspended` -> `active` on renewal; `suspended` -> `terminated` at `terminates_at`, the expiry plus a grace " +
    "period of `SERVER_GRACE_DAYS` (default " +
    DEFAULTS.SERVER_GRACE_DAYS +
    "), its last disk kept for `EXPIRED_SERVER_RETENTION_DAYS` (default " +
    DEFAULTS.EXPIRED_SERVER_RETENTION_DAYS +
    ") until `retained_until`: renewing it before then brings it back (see Snapshots and rescue); any state -> " +
    "`terminated` when the owner deletes it, with nothing kept. Otherwise terminated is final: the machine, its " +
    "address and its password are gone. No refunds. The operator may suspend a server (or every server of an " +
    "account) for abuse: it is stopped and `suspended`, `status_reason` reads `Suspended by the operator: ` and " +
    "the reason, power actions, the console, reinstalls and rescue are refused, and its paid period waits " +
    "(`terminates_at` null) unless the operator lets it run; when lifted it is given back as it was, its " +
    "`expires_at` moved on by the time it was held. A key limited to some servers (its `server_ids`) sees " +
    "only those: any other answers 404 and is left out of lists; a server it orders joins them. Automatic " +
    "renewal is the account's own: it is charged to no key's spend cap, not even that of the key that " +
    "switched it on.",
};

export const serversPaths: ZodOpenApiPathsObject = {
  "/servers": {
    post: authed("billing:spend", {
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
        "its location with room for it before anything is charged; the build runs as a job after the answer. " +
        "When the balance is short, the 402 offers to pay the order with x402 (USDC on Base), valid long " +
        "enough for the build (`maxTimeoutSeconds`): re-send the request with the signed payment. It is checked " +
        "as a settlement would check it and held, not submitted; the server is built and, once it answers on " +
        "SSH, the payment is settled (a top-up credited and the order charged, in one transaction, so the " +
        "balance stays as it was). A build that fails releases it unsubmitted; a payment that can no longer be " +
        "settled (funds moved, authorization expired) leaves the server `suspended` as an unpaid one, renewable " +
        "from the balance until it is terminated after the grace period. The payment is the order's " +
        "idempotency key: sent again, it answers the first order. No key's spend cap counts a payment from a " +
        "wallet.",
      requestParams: { header: idempotencyHeader.extend(x402PaymentHeaders("order")) },
      requestBody: jsonRequest(CreateServerBody),
      responses: {
        "201": { description: "The server, provisioning.", content: jsonContent(ServerCreatedSchema) },
        "400": bodyErrors("Bad body.", CreateServerBody, ["invalid_idempotency_key", "invalid_payment"]),
        "402": offeredPayment(
          "The balance does not cover the price: `insufficient_balance` with the deficit in USD, and the x402 " +
            "offer for the order's price in `accepts` (v1) and the `PAYMENT-REQUIRED` header (v2). A payment " +
            "refused answers the top-ups' x402 codes with the offer again, or `payment_window_too_short`: it " +
            "expires before the build could end (sign it for `maxTimeoutSeconds`).",
        ),
        "403": errorResponse(
          "The operator has suspended the account (`GET /account` shows `suspension`); nothing is charged.",
          ["account_suspended"],
        ),
        "409": errorResponse(
          "`out_of_capacity`: no host of the location has room for the plan; `os_unavailable`: this deployment " +
            "has no image for the OS (`available: false` in the catalog); `idempotency_key_in_use`: the key's " +
            "first request is still running. Nothing is charged.",
          ["out_of_capacity", "os_unavailable", "idempotency_key_in_use"],
        ),
        "413": responses.tooLarge,
        "415": responses.unsupportedMedia,
        "422": responses.idempotencyKeyReused,
      },
    }),
    get: authed("servers:read", {
      tags: ["Servers"],
      operationId: "listServers",
      summary: "List servers",
      description:
        `The account's servers, newest first and terminated ones included, ${SERVER_PAGE_DEFAULT} a page unless ` +
        "`limit` says otherwise. When `next_cursor` is not null, send it as `cursor` for the next (older) page.",
      requestParams: { query: pageQuerySchema(SERVER_PAGE_DEFAULT) },
      responses: {
        "200": { description: "One page of servers.", content: jsonContent(ServerListSchema) },
        "400": responses.badPage,
      },
    }),
  },
  "/servers/{id}": {
    get: authed("servers:read", {
      tags: ["Servers"],
      operationId: "getServer",
      summary: "A server",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The server.", content: jsonContent(ServerSchema) },
        "404": serverNotFound,
      },
    }),
    patch: authed("billing:spend", {
      tags: ["Servers"],
      operationId: "updateServer",
      summary: "Turn auto-renew on or off",
      description:
        "Needs `billing:spend`: automatic renewal spends the balance. It is the account's own spending: the " +
        "renewals it makes count against no key's spend cap, not even the cap of the key that turned it on.",
      requestParams: { path: serverIdParam },
      requestBody: jsonRequest(UpdateServerBody),
      responses: {
        "200": { description: "The server.", content: jsonContent(ServerSchema) },
        "400": bodyErrors("Bad body.", UpdateServerBody),
        "404": serverNotFound,
        "409": errorResponse("The server is terminated.", ["server_terminated"]),
      },
    }),
    delete: authed("servers:terminate", {
      tags: ["Servers"],
      operationId: "terminateServer",
      summary: "Terminate a server now",
      description:
        "Ends the server at once (address, capacity and credentials released) and removes the machine, its " +
        "domain, disks and snapshots, in the background; the unused time is not refunded and nothing is kept. " +
        "Refused while the operator holds the server (`hold` is set): what is being looked into is kept until " +
        "the hold is lifted.",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The terminated server.", content: jsonContent(ServerSchema) },
        "404": serverNotFound,
        "409": errorResponse(
          "Already terminated (`server_terminated`), or held by the operator (`server_held`: the message gives " +
            "the operator's reason; nothing changed).",
          ["server_terminated", "server_held"],
        ),
      },
    }),
  },
  "/servers/{id}/credentials": {
    get: authed("servers:credentials", {
      tags: ["Servers"],
      operationId: "getServerCredentials",
      summary: "Reveal the root login",
      description: "Decrypted on request; sent with `Cache-Control: no-store`.",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "The credentials.", content: jsonContent(CredentialsSchema) },
        "404": serverNotFound,
        "409": errorResponse("The server is terminated; its credentials are gone.", ["server_terminated"]),
      },
    }),
  },
  "/servers/{id}/renew": {
    post: authed("billing:spend", {
      tags: ["Servers"],
      operationId: "renewServer",
      summary: "Renew for one more cycle",
      description:
        "Charges the price from the balance and extends `expires_at` by one cycle (from now for a suspended " +
        "server, which becomes active again; a server the operator holds with its period paused is extended from " +
        "`expires_at`, never from now, and stays suspended until the hold is lifted). A server terminated because its period lapsed can be renewed until " +
        "`retained_until`: it turns `provisioning` and comes back on its kept disk, on the same address and port " +
        "where still free, with the same root password and host key (a new host key only if its address changed " +
        "on a bridged host); its new period starts once it runs, and a return that fails is refunded. Accepts an " +
        "Idempotency-Key. When the balance is short, the 402 offers to pay the renewal with x402 (USDC on " +
        "Base): re-send the request with the signed payment for exactly the renewal's price. It is settled at " +
        "once, credited as a completed top-up and charged for the renewal, so the balance stays as it was; the " +
        "balance is tried first, so a payment is never taken when it is not needed. The payment names the " +
        "request: sending it again answers the first renewal (no Idempotency-Key needed). A renewal refused " +
        "after the payment settled (a spend cap, a server terminated meanwhile) leaves the payment on the " +
        "balance, and its message says so.",
      requestParams: { path: serverIdParam, header: idempotencyHeader.extend(x402PaymentHeaders("renewal")) },
      responses: {
        "200": {
          description: "The renewed server.",
          content: jsonContent(ServerSchema),
          headers: {
            "X-PAYMENT-RESPONSE": {
              description: "Paid with x402 v1: base64 JSON `{success, transaction, network, payer}`.",
              schema: { type: "string" as const },
            },
            "PAYMENT-RESPONSE": {
              description: "Paid with x402 v2: base64 JSON `{success, transaction, network, payer}`.",
              schema: { type: "string" as const },
            },
          },
        },
        "400": bodyErrors("The body was not empty or `{}`.", EmptyBody, [
          "invalid_idempotency_key",
          "invalid_payment",
        ]),
        "402": offeredPayment(
          "The balance does not cover the price: `insufficient_balance`, with the x402 offer for the " +
            "renewal's price in `accepts` (v1) and the `PAYMENT-REQUIRED` header (v2). A payment refused " +
            "before any chain transaction answers the top-ups' x402 codes (`payment_amount_mismatch`, " +
            "`payment_expired`, `insufficient_funds`, ...) with the offer again.",
        ),
        "404": serverNotFound,
        "409": hostOperationConflict(
          "`server_terminated`: terminated, and its disk is no longer kept; `already_charged`: this renewal was " +
            "already charged; `out_of_capacity`: a lapsed server's host has no room to bring it back now. Nothing " +
            "is charged.",
          ["server_terminated", "already_charged", "out_of_capacity"],
        ),
      },
    }),
  },
  "/servers/{id}/actions": {
    post: authed("servers:power", {
      tags: ["Servers"],
      operationId: "serverPowerAction",
      summary: "Start, stop or reboot",
      description:
        "Performed on the host before the answer: `stop` is an ACPI shutdown, forced off after the stop timeout; " +
        "`power_state` is what the host then reports. One host operation runs per server at a time, and each " +
        "account has a limit on them (see 429).",
      requestParams: { path: serverIdParam },
      requestBody: jsonRequest(ServerActionBody),
      responses: {
        "200": {
          description: "The server with its new `power_state`.",
          content: jsonContent(ServerSchema),
        },
        "400": bodyErrors("Bad body.", ServerActionBody),
        "404": serverNotFound,
        "409": hostOperationConflict("`server_not_active`: only an active server can be powered.", [
          "server_not_active",
        ]),
        "429": hostOperationLimited,
      },
    }),
  },
};
