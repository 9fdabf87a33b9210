/**
 * The operator API's own OpenAPI 3.1 document (served at /api/operator/v1/openapi.json), from the same zod
 * schemas its routes validate with. It is not part of the public API's document, and its codes are not the
 * public API's (OPERATOR_ERROR_CODES).
 */
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import type { ErrorCode, OperatorErrorCode } from "@/lib/api/error-codes";
import { DEFAULTS, perWindow } from "@/lib/api/openapi/shared";
import { ErrorSchema } from "@/lib/api/schemas/common";
import { MAX_ADJUSTMENT_CENTS } from "./adjustments";
import {
  AccountDetailSchema,
  AdjustmentRequestSchema,
  AdjustmentSchema,
  AuditPageSchema,
  CloseConsoleRequestSchema,
  ClosedConsoleSchema,
  DeactivationRequestSchema,
  DecisionRequestSchema,
  DrainRequestSchema,
  FlaggedPaymentSchema,
  HostSchema,
  LiftRequestSchema,
  OperatorListSchema,
  OperatorSessionSchema,
  OverviewSchema,
  PendingAdjustmentListSchema,
  PendingAdjustmentSchema,
  ReviewRequestSchema,
  SearchResultSchema,
  SignInRequestSchema,
  SmtpRequestSchema,
  SmtpSchema,
  SuspendRequestSchema,
} from "./schemas";

type Code = ErrorCode | OperatorErrorCode;

const json = (schema: z.ZodType) => ({ "application/json": { schema } });
const fails = (description: string, codes: Code[]) => ({
  description: `${description} Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
  content: json(ErrorSchema),
});
const ok = (description: string, schema: z.ZodType) => ({ description, content: json(schema) });

const BODY: Code[] = [
  "invalid_json",
  "invalid_body",
  "unknown_field",
  "invalid_request",
  "payload_too_large",
];

/** What every signed-in operation may answer besides its own. */
function signedIn(
  operation: ZodOpenApiOperationObject,
  options: { write?: boolean; role?: string; forbidden?: { description: string; codes: Code[] } } = {},
): ZodOpenApiOperationObject {
  // An operation's own 403 (its codes given as `forbidden`) joins the session's.
  const forbidden = options.forbidden ?? { description: "", codes: [] };
  return {
    ...operation,
    security: [{ operatorSession: [], ...(options.write ? { csrfToken: [] } : {}) }],
    responses: {
      ...operation.responses,
      ...(options.write || options.role
        ? {
            "403": fails(
              [
                options.write ? "A write without this session's `X-CSRF-Token`, or from another origin." : "",
                options.role ? `The role is below ${options.role}.` : "",
                forbidden.description,
              ]
                .filter(Boolean)
                .join(" "),
              [
                ...(options.write ? (["csrf_failed"] as Code[]) : []),
                ...(options.role ? (["operator_forbidden"] as Code[]) : []),
                ...forbidden.codes,
              ],
            ),
          }
        : {}),
      "404": fails(
        "No live operator session (none, ended, idle too long, or a customer's key or cookie): the same answer as " +
          "for a path that does not exist. Also an id that names nothing.",
        ["not_found"],
      ),
      "429": fails(
        `Too many requests of this operator (${perWindow(DEFAULTS.RATE_LIMIT_OPERATOR_REQUESTS)} by default, ` +
          "`RATE_LIMIT_OPERATOR_REQUESTS`), with `Retry-After`.",
        ["rate_limited"],
      ),
    },
  };
}

const tags = [
  { name: "Session", description: "Signing in and out." },
  { name: "Overview", description: "The business at a glance." },
  { name: "Hosts", description: "Capacity sold and free against what libvirt reports; draining." },
  { name: "Payments", description: "Payments needing attention, and their review." },
  {
    name: "Accounts",
    description: "Finding accounts; their money, servers and sessions; suspensions; adjustments.",
  },
  { name: "Audit", description: "The append-only log of every operator action (admin)." },
  {
    name: "Operators",
    description:
      "Operators and their adjustments' daily cap: deactivating one, approving another admin's adjustment (admin).",
  },
];

const accountId = z.object({ id: z.int().meta({ description: "The account's id." }) });
const serverId = z.object({ id: z.int().meta({ description: "The server's id." }) });
const consoleId = z.object({
  id: z.int().meta({ description: "The console session's id (an account's `consoles` list)." }),
});

const paths: ZodOpenApiPathsObject = {
  "/session": {
    post: {
      tags: ["Session"],
      summary: "Sign in",
      description:
        "The secret `npm run operator:add` printed and a current TOTP code, both always. Sets the session cookie " +
        "(`vps_operator`, `__Host-vps_operator` in production: HttpOnly, SameSite=Strict) and answers the session " +
        "with its CSRF token. A wrong secret and a wrong code get the same answer; failed sign-ins are limited " +
        `per client address and per operator (${perWindow(DEFAULTS.RATE_LIMIT_OPERATOR_SIGNIN)} by default, ` +
        "`RATE_LIMIT_OPERATOR_SIGNIN`); each code works once.",
      requestBody: { content: json(SignInRequestSchema) },
      responses: {
        "200": ok("Signed in.", OperatorSessionSchema),
        "400": fails("A bad body.", BODY),
        "401": fails("The secret or the code is wrong (or the code was used already).", [
          "invalid_operator_sign_in",
        ]),
        "429": fails("Too many failed sign-ins, with `Retry-After`.", ["rate_limited"]),
      },
    },
    get: signedIn({
      tags: ["Session"],
      summary: "The signed-in operator",
      responses: { "200": ok("The session.", OperatorSessionSchema) },
    }),
    delete: signedIn(
      {
        tags: ["Session"],
        summary: "Sign out",
        description: "Ends the session everywhere and clears the cookie.",
        responses: { "204": { description: "Signed out." } },
      },
      { write: true },
    ),
  },
  "/overview": {
    get: signedIn({
      tags: ["Overview"],
      summary: "Money, balances, servers, failing jobs, watchers and hosts",
      description:
        "Credited top-ups per UTC day and coin over 30 days, what balances hold (what the service owes), servers " +
        "by status (and how many are held), build and host jobs failed in 7 days and those retrying, the deposit " +
        "watchers' health, each host's use and libvirt state, and how many payments need attention.",
      responses: { "200": ok("The overview.", OverviewSchema) },
    }),
  },
  "/hosts": {
    get: signedIn({
      tags: ["Hosts"],
      summary: "Every host: sold, free, drained, and what libvirt reports",
      requestParams: {
        query: z.object({
          fresh: z
            .enum(["1"])
            .optional()
            .meta({ description: "`1`: read libvirt now, not from the 10 s cache." }),
        }),
      },
      responses: { "200": ok("The hosts.", z.object({ hosts: z.array(HostSchema) })) },
    }),
  },
  "/hosts/{name}/drain": {
    post: signedIn(
      {
        tags: ["Hosts"],
        summary: "Drain a host",
        description: "No new order is placed on it; what runs there stays (listed in `servers`).",
        requestParams: { path: z.object({ name: z.string() }) },
        requestBody: { content: json(DrainRequestSchema) },
        responses: { "200": ok("The host.", HostSchema), "400": fails("A bad body.", BODY) },
      },
      { write: true, role: "admin" },
    ),
    delete: signedIn(
      {
        tags: ["Hosts"],
        summary: "Take a drained host back into service",
        requestParams: { path: z.object({ name: z.string() }) },
        requestBody: { content: json(DrainRequestSchema) },
        responses: { "200": ok("The host.", HostSchema), "400": fails("A bad body.", BODY) },
      },
      { write: true, role: "admin" },
    ),
  },
  "/payments": {
    get: signedIn({
      tags: ["Payments"],
      summary: "Flagged payments",
      description:
        "Payments a watcher or the x402 rail flagged: `reorged` (credited, then its block left the best chain; the " +
        "credit stands), `dropped` (left the mempool unmined, never credited), `late` (after its quote ended, " +
        "credited at the lower rate), `overpaid` (more than asked, the excess credited), `settlement_unknown` (an " +
        "x402 settlement that may have been sent, its outcome never recorded). Newest first, 200 at most.",
      requestParams: {
        query: z.object({
          state: z.enum(["attention", "reviewed"]).optional().meta({ description: "Default `attention`." }),
        }),
      },
      responses: {
        "200": ok("The payments.", z.object({ payments: z.array(FlaggedPaymentSchema) })),
        "400": fails("A bad `state`.", ["invalid_request"]),
      },
    }),
  },
  "/payments/{kind}/{id}/review": {
    post: signedIn(
      {
        tags: ["Payments"],
        summary: "Mark a flagged payment reviewed",
        requestParams: { path: z.object({ kind: z.enum(["deposit", "x402"]), id: z.int() }) },
        requestBody: { content: json(ReviewRequestSchema) },
        responses: {
          "200": ok("The payment, reviewed.", FlaggedPaymentSchema),
          "400": fails("A bad body.", BODY),
          "409": fails("Reviewed already.", ["already_reviewed"]),
        },
      },
      { write: true, role: "support" },
    ),
  },
  "/search": {
    get: signedIn({
      tags: ["Accounts"],
      summary: "Find accounts",
      description:
        "By account id (or server id), a server's address (current or former), a deposit address, a transaction " +
        "id, or an x402 payer's address; hex without regard to case.",
      requestParams: { query: z.object({ q: z.string().meta({ example: "10.0.3.17" }) }) },
      responses: { "200": ok("What matched.", SearchResultSchema) },
    }),
  },
  "/accounts/{id}": {
    get: signedIn({
      tags: ["Accounts"],
      summary: "One account",
      description:
        "Balance, the last 100 ledger rows (adjustments with their reasons), top-ups with their payments, servers " +
        "(holds included), live keys and sessions, recent consoles, and flagged payments.",
      requestParams: { path: accountId },
      responses: { "200": ok("The account.", AccountDetailSchema) },
    }),
  },
  "/accounts/{id}/suspension": {
    post: signedIn(
      {
        tags: ["Accounts"],
        summary: "Suspend the whole account",
        description:
          "Every server it has is held (stopped, `suspended`, `status_reason` starting `Suspended by the operator:` " +
          "and the reason), it can order no new server (`403 account_suspended`), and `GET /account` shows " +
          "`suspension`. Top-ups and reads keep working.",
        requestParams: { path: accountId },
        requestBody: { content: json(SuspendRequestSchema) },
        responses: {
          "204": { description: "Suspended." },
          "400": fails("A bad body.", BODY),
          "409": fails("Suspended already.", ["already_suspended"]),
        },
      },
      { write: true, role: "support" },
    ),
    delete: signedIn(
      {
        tags: ["Accounts"],
        summary: "Lift the account's suspension",
        description: "Its servers get back what they had, except those suspended on their own.",
        requestParams: { path: accountId },
        requestBody: { content: json(LiftRequestSchema) },
        responses: {
          "204": { description: "Lifted." },
          "400": fails("A bad body.", BODY),
          "409": fails("Not suspended.", ["not_suspended"]),
        },
      },
      { write: true, role: "support" },
    ),
  },
  "/accounts/{id}/adjustments": {
    post: signedIn(
      {
        tags: ["Accounts"],
        summary: "Post a ledger adjustment",
        description:
          "A credit (positive) or a debit (negative) through the ledger, with its reason, in one transaction with " +
          "the balance and the audit entry. A debit beyond the balance is refused and changes nothing. Send an " +
          "`Idempotency-Key`: a retry with it answers the first result (200) and posts nothing. At most " +
          `${MAX_ADJUSTMENT_CENTS / 100} USD either way. Naming a flagged \`payment\` settles it: it is closed on ` +
          "its rail in the same transaction (an x402 authorization whose outcome was never recorded is never " +
          "credited by its owner's retry afterwards; a dropped deposit payment seen again credits nothing), and " +
          "one adjustment settles a payment. An operator's adjustments of the last 24 hours, credits and debits " +
          `alike, may move ${DEFAULTS.OPERATOR_ADJUSTMENT_DAILY_CAP_USD} USD by default ` +
          "(`OPERATOR_ADJUSTMENT_DAILY_CAP_USD`); past it the adjustment is not posted but waits (202) for " +
          "another admin's approval (`/adjustment-approvals`).",
        requestParams: {
          path: accountId,
          header: z.object({ "Idempotency-Key": z.string().min(1).max(255).optional() }),
        },
        requestBody: { content: json(AdjustmentRequestSchema) },
        responses: {
          "201": ok("Posted.", AdjustmentSchema),
          "200": ok("Posted before with the same key.", AdjustmentSchema),
          "202": ok(
            "Past the operator's daily cap: nothing posted, waiting for another admin's approval (also the " +
              "answer to a retry with the same key while it waits).",
            PendingAdjustmentSchema,
          ),
          "400": fails("A bad body or amount, or a payment of another account.", [
            ...BODY,
            "invalid_amount",
            "invalid_idempotency_key",
          ]),
          "409": fails(
            "The debit exceeds the balance; the payment is settled by an adjustment already (or one waits for " +
              "approval), or its owner's retry credited it from the chain; its owner's retry is settling it now.",
            ["adjustment_exceeds_balance", "payment_already_settled", "payment_being_settled"],
          ),
          "422": fails("The key was used for another adjustment.", ["idempotency_key_reused"]),
        },
      },
      { write: true, role: "admin" },
    ),
  },
  "/adjustment-approvals": {
    get: signedIn(
      {
        tags: ["Operators"],
        summary: "Adjustments waiting for a second admin",
        description: "Every adjustment past its operator's daily cap not decided yet, oldest first.",
        responses: { "200": ok("The list.", PendingAdjustmentListSchema) },
      },
      { role: "admin" },
    ),
  },
  "/adjustment-approvals/{id}": {
    post: signedIn(
      {
        tags: ["Operators"],
        summary: "Approve or refuse an adjustment past its operator's cap",
        description:
          "By an admin other than the one who asked. Approved, it is posted now as an adjustment would be (every " +
          "check made again: the balance, the payment not settled meanwhile), the asker's, naming this admin as " +
          "its approver, and does not count against the asker's cap; refused, nothing is posted. Audited.",
        requestParams: { path: z.object({ id: z.int() }) },
        requestBody: { content: json(DecisionRequestSchema) },
        responses: {
          "200": ok("The approval as decided.", PendingAdjustmentSchema),
          "400": fails("A bad body.", BODY),
          "409": fails(
            "Decided already; or, approving, the debit now exceeds the balance or the payment was settled meanwhile.",
            [
              "approval_decided",
              "adjustment_exceeds_balance",
              "payment_already_settled",
              "payment_being_settled",
            ],
          ),
        },
      },
      {
        write: true,
        role: "admin",
        forbidden: {
          description: "The asker cannot decide their own.",
          codes: ["approval_needs_another_admin"],
        },
      },
    ),
  },
  "/operators": {
    get: signedIn(
      {
        tags: ["Operators"],
        summary: "The operators",
        description:
          "Every operator, deactivated ones included (the audit log names them): role, live sessions, last " +
          "request, and their adjustments of the last 24 hours against the daily cap. Never a secret.",
        responses: { "200": ok("The list.", OperatorListSchema) },
      },
      { role: "admin" },
    ),
  },
  "/operators/{name}/deactivation": {
    post: signedIn(
      {
        tags: ["Operators"],
        summary: "Deactivate an operator",
        description:
          "Their every session ends at once and they can no longer sign in; the operator stays listed (the audit " +
          "log refers to them). Not yourself: another admin, or `npm run operator:disable NAME` on the machine. " +
          "Audited.",
        requestParams: { path: z.object({ name: z.string() }) },
        requestBody: { content: json(DeactivationRequestSchema) },
        responses: {
          "200": ok("Deactivated.", z.object({ sessions_ended: z.int() })),
          "400": fails("A bad body.", BODY),
          "409": fails("Deactivated already, or yourself.", [
            "operator_disabled_already",
            "cannot_disable_self",
          ]),
        },
      },
      { write: true, role: "admin" },
    ),
  },
  "/servers/{id}/suspension": {
    post: signedIn(
      {
        tags: ["Accounts"],
        summary: "Suspend a server",
        description:
          "The server is stopped and `suspended`, `status_reason` says `Suspended by the operator:` and the reason; " +
          "its owner's power actions, console, reinstall and rescue are refused (`server_not_active`). Its paid " +
          "period waits unless `pause_period` is false.",
        requestParams: { path: serverId },
        requestBody: { content: json(SuspendRequestSchema) },
        responses: {
          "200": ok("The server as its owner now sees it.", z.record(z.string(), z.unknown())),
          "400": fails("A bad body.", BODY),
          "409": fails("Suspended already, or terminated.", ["already_suspended", "server_terminated"]),
        },
      },
      { write: true, role: "support" },
    ),
    delete: signedIn(
      {
        tags: ["Accounts"],
        summary: "Lift a server's suspension",
        description:
          "The server gets back what it had: active (started again if it ran) while its period lasts, its expiry " +
          "moved on by the time held when paused; else suspended for its lapsed period. Held on while its account " +
          "is suspended.",
        requestParams: { path: serverId },
        requestBody: { content: json(LiftRequestSchema) },
        responses: {
          "200": ok("The server as its owner now sees it.", z.record(z.string(), z.unknown())),
          "400": fails("A bad body.", BODY),
          "409": fails("Not suspended.", ["not_suspended"]),
        },
      },
      { write: true, role: "support" },
    ),
  },
  "/consoles/{id}": {
    delete: signedIn(
      {
        tags: ["Accounts"],
        summary: "Close a console",
        description:
          "Closes a customer's console session (`closed_by_operator`), or withdraws its unused ticket. The " +
          "instance holding it ends it at once, or within 10 s when it is another one. Audited with the reason.",
        requestParams: { path: consoleId },
        requestBody: { content: json(CloseConsoleRequestSchema) },
        responses: {
          "200": ok("Closed.", ClosedConsoleSchema),
          "400": fails("A bad body.", BODY),
          "409": fails("Closed already.", ["console_closed"]),
        },
      },
      { write: true, role: "support" },
    ),
  },
  "/servers/{id}/smtp": {
    put: signedIn(
      {
        tags: ["Accounts"],
        summary: "Open or block a server's outbound mail",
        description:
          "Outbound tcp 25 is blocked on every server by its firewall; `open: true` lets it pass for this one, " +
          "`false` blocks it again. The owner sees it as `smtp` of the server's firewall; the host applies it " +
          "like any firewall change. Recorded in the audit log with the reason.",
        requestParams: { path: serverId },
        requestBody: { content: json(SmtpRequestSchema) },
        responses: {
          "200": ok("The server's SMTP policy now.", SmtpSchema),
          "400": fails("A bad body.", BODY),
          "409": fails("The server is terminated.", ["server_terminated"]),
        },
      },
      { write: true, role: "support" },
    ),
  },
  "/audit": {
    get: signedIn(
      {
        tags: ["Audit"],
        summary: "The audit log",
        description: "Newest first, 100 a page. Entries are never changed or removed.",
        requestParams: {
          query: z.object({
            before: z.int().optional().meta({ description: "`next_before` of the previous page." }),
            target: z
              .string()
              .optional()
              .meta({ description: "Only entries about this target, e.g. `account:7`." }),
          }),
        },
        responses: {
          "200": ok("A page.", AuditPageSchema),
          "400": fails("A bad `before`.", ["invalid_request"]),
        },
      },
      { role: "admin" },
    ),
  },
};

export function buildOperatorOpenApiDocument() {
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Prepaid VPS operator API",
      version: "1.0.0",
      description: [
        "The operator's console over HTTP. Operators are not customers: accounts are made on the machine with",
        "`npm run operator:add NAME --role read-only|support|admin`, sign in with the printed secret and a TOTP",
        "code, and hold the session in a cookie of their own. Without a live operator session every path answers",
        "`404 not_found`, exactly as a path that does not exist (customer keys and cookies are not looked at).",
        "",
        "**Writes** need the session's CSRF token as `X-CSRF-Token`, and, where the client sends them, `Origin` of",
        "this site and `Sec-Fetch-Site: same-origin`.",
        "",
        "**Roles.** read-only: every read except the audit log. support: also suspensions, closing consoles,",
        "payment reviews and servers' outbound mail. admin: also ledger adjustments (and approving another",
        "admin's past the daily cap), draining hosts, the audit log and deactivating operators.",
        "",
        `**Sessions** end after ${DEFAULTS.OPERATOR_SESSION_IDLE_MINUTES} minutes without a request`,
        `(\`OPERATOR_SESSION_IDLE_MINUTES\`) and ${DEFAULTS.OPERATOR_SESSION_HOURS} hours after sign-in`,
        "(`OPERATOR_SESSION_HOURS`). Every action is in the audit log: who, what, on what, why, from where, when.",
        "The console's pages count against the same per-operator request limit as this API",
        "(`RATE_LIMIT_OPERATOR_REQUESTS`).",
        "",
        "Errors are `{error, message}` as in the public API.",
      ].join("\n"),
    },
    servers: [{ url: "/api/operator/v1", description: "This deployment" }],
    tags,
    components: {
      securitySchemes: {
        operatorSession: {
          type: "apiKey",
          in: "cookie",
          name: "vps_operator",
          description: "The cookie sign-in sets (`__Host-vps_operator` in production).",
        },
        csrfToken: {
          type: "apiKey",
          in: "header",
          name: "X-CSRF-Token",
          description: "The session's `csrf_token`, on every write.",
        },
      },
    },
    paths,
  });
}
