/**
 * The operator API's wire schemas (zod): the requests the routes validate, and the answers the OpenAPI document
 * describes. The services' result types are checked against these at the end of the file.
 */
import { z } from "zod";
import { requestBody } from "@/lib/api/request-body";
import { timestamp } from "@/lib/api/schemas/common";
import { OPERATOR_ROLES } from "@/lib/db/types";
import type { AccountDetail, SearchHit } from "./accounts";
import type { Adjustment, PendingAdjustment } from "./adjustments";
import type { AuditEntry } from "./audit";
import type { HostView } from "./hosts";
import type { OperatorListing } from "./operators";
import type { Overview } from "./overview";
import type { FlaggedPayment } from "./payments";

/** What a person writes as a reason: shown to the customer (suspensions) or kept in the audit log. */
const reason = (what: string) =>
  z
    .string()
    .trim()
    .min(3, "write at least 3 characters")
    .max(500)
    .meta({ description: `${what} 3 to 500 characters.` });

export const SignInRequestSchema = z
  .strictObject({
    secret: z.string().max(200).meta({
      description: "The sign-in secret `npm run operator:add` printed (`op-XXXX-...`).",
    }),
    code: z.string().max(20).meta({ description: "The current 6-digit TOTP code.", example: "492039" }),
  })
  .meta({ id: "OperatorSignInRequest" });

export const OperatorSessionSchema = z
  .object({
    operator: z.object({ name: z.string(), role: z.enum(OPERATOR_ROLES) }),
    expires_at: timestamp().meta({
      description: "When the session ends however busy (OPERATOR_SESSION_HOURS).",
    }),
    idle_until: timestamp().meta({
      description:
        "When it ends without another request (OPERATOR_SESSION_IDLE_MINUTES; every request moves it on).",
    }),
    csrf_token: z
      .string()
      .meta({ description: "Send it as `X-CSRF-Token` with every write of this session." }),
  })
  .meta({ id: "OperatorSession" });

export const SuspendRequestSchema = z
  .strictObject({
    reason: reason("What the customer reads: on the dashboard and in `status_reason`."),
    pause_period: z
      .boolean()
      .default(true)
      .meta({
        description:
          "Default `true`: the paid period waits while the suspension lasts (added to `expires_at` when lifted). " +
          "`false`: it runs on, and the server can lapse and reach termination meanwhile.",
      }),
  })
  .meta({ id: "OperatorSuspendRequest" });

export const LiftRequestSchema = z
  .strictObject({ reason: reason("Why it is lifted, for the audit log.") })
  .meta({ id: "OperatorLiftRequest" });

export const CloseConsoleRequestSchema = z
  .strictObject({ reason: reason("Why it is closed, for the audit log.") })
  .meta({ id: "OperatorCloseConsoleRequest" });

export const ClosedConsoleSchema = z
  .object({ id: z.int(), account_id: z.int(), server_id: z.int(), closed: z.literal(true) })
  .meta({ id: "OperatorClosedConsole" });

export const SmtpRequestSchema = z
  .strictObject({
    open: z
      .boolean()
      .meta({ description: "`true`: outbound tcp 25 passes; `false`: blocked again (the default)." }),
    reason: reason("Why, for the audit log."),
  })
  .meta({ id: "OperatorSmtpRequest" });

export const SmtpSchema = z
  .object({ server_id: z.int(), smtp: z.enum(["open", "blocked"]) })
  .meta({ id: "OperatorSmtp" });

export const AdjustmentRequestSchema = z
  .strictObject({
    amount_usd: z.number().meta({
      description:
        "Positive: a credit to the account; negative: a debit. Whole cents, at most 10,000 USD either way.",
      example: 12.5,
    }),
    reason: reason("Why, for the ledger's record and the audit log."),
    payment: z
      .string()
      .regex(/^(deposit|x402):[1-9]\d{0,9}$/)
      .optional()
      .meta({
        description:
          "The flagged payment this settles (`deposit:<id>` or `x402:<id>`): marked reviewed with it.",
      }),
  })
  .meta({ id: "OperatorAdjustmentRequest" });

export const DecisionRequestSchema = z
  .strictObject({
    decision: z.enum(["approve", "refuse"]).meta({
      description: "`approve`: post it now (every check made again); `refuse`: nothing is posted.",
    }),
    note: reason("Why, for the audit log."),
  })
  .meta({ id: "OperatorAdjustmentDecisionRequest" });

export const DeactivationRequestSchema = z
  .strictObject({ reason: reason("Why, for the audit log.") })
  .meta({ id: "OperatorDeactivationRequest" });

export const ReviewRequestSchema = z
  .strictObject({ note: reason("What was found and done.") })
  .meta({ id: "OperatorReviewRequest" });

export const DrainRequestSchema = z
  .strictObject({ reason: reason("Why, for the audit log.") })
  .meta({ id: "OperatorDrainRequest" });

const size = z.object({ memory_mb: z.int(), vcpus: z.int(), disk_gb: z.int() });

export const HostSchema = z
  .object({
    name: z.string(),
    location: z.string(),
    uri: z.string(),
    capacity: size.meta({ description: "The host's size as HYPERVISORS gives it." }),
    sold: size.meta({
      description: "What its live servers and their snapshots hold (what placement counts).",
    }),
    free: size.meta({ description: "Capacity minus sold: room for new orders unless drained." }),
    drained: z.object({ at: timestamp(), reason: z.string().nullable() }).nullable(),
    servers: z.array(
      z.object({
        id: z.int(),
        account_id: z.int(),
        hostname: z.string(),
        status: z.string(),
        plan: z.string(),
        memory_mb: z.int(),
        vcpus: z.int(),
        disk_gb: z.int(),
      }),
    ),
    libvirt: z
      .object({
        status: z.enum(["ok", "unreachable", "simulated"]),
        error: z.string().optional(),
        cpus: z.int().optional(),
        memory_mb: z.int().optional(),
        pool: z
          .object({ capacity_bytes: z.number(), allocation_bytes: z.number(), available_bytes: z.number() })
          .nullable()
          .optional(),
        assigned: z
          .object({ memory_mb: z.int(), vcpus: z.int(), domains: z.int(), running: z.int() })
          .optional(),
        other_domains: z.object({ count: z.int(), memory_mb: z.int(), vcpus: z.int() }).optional(),
        stray_domains: z
          .array(
            z.object({
              name: z.string(),
              server_id: z.int().nullable(),
              running: z.boolean(),
              why: z.enum(["no server row", "server terminated", "server on another host"]),
            }),
          )
          .optional(),
        missing_domains: z
          .array(z.object({ server_id: z.int(), hostname: z.string(), status: z.string() }))
          .optional(),
      })
      .meta({
        description:
          "What the host's libvirt reports (read at most every 10 s): `simulated` without a hypervisor, " +
          "`unreachable` with the error, else its CPUs and memory, the disk pool, what the service's domains are " +
          "given, other domains, domains with no live server row here, and server rows whose domain is gone.",
      }),
  })
  .meta({ id: "OperatorHost" });

export const FlaggedPaymentSchema = z
  .object({
    id: z.string().meta({ example: "deposit:42" }),
    flags: z.array(z.enum(["reorged", "dropped", "late", "overpaid", "settlement_unknown"])),
    coin: z.string(),
    network: z.string(),
    tx_hash: z.string().nullable(),
    amount: z.string().nullable().meta({ description: "In the coin; null for an x402 settlement not seen." }),
    confirmations: z.int().nullable(),
    confirmations_required: z.int().nullable(),
    credited_usd: z.number().nullable(),
    seen_at: timestamp(),
    account_id: z.int(),
    topup: z.object({ ref: z.string(), status: z.string(), amount_usd: z.number() }).nullable(),
    payer: z.string().nullable(),
    review: z.object({ by: z.string(), at: timestamp(), note: z.string() }).nullable(),
  })
  .meta({ id: "OperatorFlaggedPayment" });

export const AdjustmentSchema = z
  .object({
    id: z.int(),
    account_id: z.int(),
    amount_usd: z.number(),
    reason: z.string(),
    payment: z.string().nullable(),
    operator: z.string(),
    approved_by: z
      .string()
      .nullable()
      .meta({ description: "The second admin who let it past its operator's daily cap, if it needed one." }),
    created_at: timestamp(),
    balance_after_usd: z.number(),
  })
  .meta({ id: "OperatorAdjustment" });

export const PendingAdjustmentSchema = z
  .object({
    id: z.int(),
    account_id: z.int(),
    amount_usd: z.number(),
    reason: z.string(),
    payment: z.string().nullable(),
    requested_by: z.string(),
    requested_at: timestamp(),
    state: z.enum(["pending", "approved", "refused"]),
    decided_by: z.string().nullable(),
    decided_at: timestamp().nullable(),
    note: z.string().nullable().meta({ description: "The deciding admin's note." }),
  })
  .meta({
    id: "OperatorPendingAdjustment",
    description:
      "An adjustment past its operator's daily cap (`OPERATOR_ADJUSTMENT_DAILY_CAP_USD`): nothing is posted " +
      "until another admin approves it.",
  });

export const PendingAdjustmentListSchema = z
  .object({ approvals: z.array(PendingAdjustmentSchema) })
  .meta({ id: "OperatorPendingAdjustments" });

export const OperatorListSchema = z
  .object({
    operators: z.array(
      z.object({
        name: z.string(),
        role: z.enum(OPERATOR_ROLES),
        created_at: timestamp(),
        disabled_at: timestamp().nullable(),
        live_sessions: z.int(),
        last_seen_at: timestamp().nullable(),
        adjusted_24h_usd: z.number().meta({
          description:
            "Their adjustments of the last 24 hours, credits and debits alike (approved ones left out): " +
            "what counts against the daily cap.",
        }),
      }),
    ),
    daily_cap_usd: z.number().meta({ description: "`OPERATOR_ADJUSTMENT_DAILY_CAP_USD`." }),
  })
  .meta({ id: "OperatorList" });

export const AuditEntrySchema = z
  .object({
    id: z.int(),
    at: timestamp(),
    operator: z.string(),
    action: z.string().meta({
      description:
        "sign_in, sign_in_refused, sign_out, suspend_server, lift_server, suspend_account, lift_account, " +
        "adjust_ledger, request_adjustment (past the daily cap), approve_adjustment, refuse_adjustment, " +
        "review_payment, drain_host, undrain_host or disable_operator.",
    }),
    target: z.string().nullable().meta({ example: "server:12" }),
    reason: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
    client: z.string().meta({ description: "The client address the action came from." }),
  })
  .meta({ id: "OperatorAuditEntry" });

export const AuditPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema),
    next_before: z.int().nullable().meta({ description: "Pass as `before` for the next (older) page." }),
  })
  .meta({ id: "OperatorAuditPage" });

export const SearchResultSchema = z
  .object({ hits: z.array(z.object({ account_id: z.int(), matched: z.string() })) })
  .meta({ id: "OperatorSearchResult" });

export const OverviewSchema = z
  .object({
    money_in: z.array(
      z.object({ day: z.string(), coins: z.record(z.string(), z.number()), total_usd: z.number() }),
    ),
    coins: z.array(z.string()),
    balances: z.object({ total_usd: z.number(), accounts_holding: z.int() }),
    servers: z.object({ by_status: z.record(z.string(), z.int()), held: z.int() }),
    jobs: z.object({
      failed_recently: z.int(),
      retrying: z.int(),
      latest_failures: z.array(
        z.object({
          id: z.int(),
          server_id: z.int(),
          kind: z.string(),
          attempts: z.int(),
          error: z.string().nullable(),
          finished_at: timestamp().nullable(),
        }),
      ),
    }),
    watchers: z
      .array(z.record(z.string(), z.unknown()))
      .meta({ description: "As /api/v1/health shows them." }),
    hosts: z.array(
      z.object({
        name: z.string(),
        location: z.string(),
        drained: z.boolean(),
        used: z.object({ memory: z.number(), vcpus: z.number(), disk: z.number() }),
        libvirt: z.string(),
      }),
    ),
    attention: z.int().meta({ description: "Payments needing attention." }),
  })
  .meta({ id: "OperatorOverview" });

export const AccountDetailSchema = z
  .object({
    id: z.int(),
    balance_usd: z.number(),
    created_at: timestamp(),
    totp_enabled: z.boolean(),
    suspension: z
      .object({
        id: z.int(),
        reason: z.string(),
        since: timestamp(),
        by: z.string(),
        pauses_period: z.boolean(),
      })
      .nullable(),
    ledger: z.array(
      z.object({
        id: z.int(),
        at: timestamp(),
        kind: z.string(),
        amount_usd: z.number(),
        balance_after_usd: z.number(),
        reference: z.string(),
        reason: z.string().nullable(),
      }),
    ),
    topups: z.array(z.record(z.string(), z.unknown())),
    servers: z.array(z.record(z.string(), z.unknown())),
    sessions: z.array(z.record(z.string(), z.unknown())),
    consoles: z.array(z.record(z.string(), z.unknown())),
    flagged_payments: z.array(FlaggedPaymentSchema),
    adjustment_approvals: z.array(PendingAdjustmentSchema).meta({
      description:
        "Its adjustments past their operator's daily cap, newest first: waiting, approved or refused.",
    }),
  })
  .meta({ id: "OperatorAccount" });

/** Compile-time: each service's result fits the schema the document publishes for it. */
type Fits<T extends U, U> = T;
export type SchemaChecks = [
  Fits<FlaggedPayment, z.input<typeof FlaggedPaymentSchema>>,
  Fits<Adjustment, z.input<typeof AdjustmentSchema>>,
  Fits<PendingAdjustment, z.input<typeof PendingAdjustmentSchema>>,
  Fits<OperatorListing, z.input<typeof OperatorListSchema>["operators"][number]>,
  Fits<AuditEntry, z.input<typeof AuditEntrySchema>>,
  Fits<{ hits: SearchHit[] }, z.input<typeof SearchResultSchema>>,
  Fits<Overview, z.input<typeof OverviewSchema>>,
  Fits<AccountDetail, z.input<typeof AccountDetailSchema>>,
  Fits<WireHost, z.input<typeof HostSchema>>,
];

/** A host as the API sends it: the service's view with snake_case keys. */
export type WireHost = ReturnType<typeof wireHost>;

export function wireHost(host: HostView) {
  const wireSize = (s: HostView["sold"]) => ({ memory_mb: s.memoryMb, vcpus: s.vcpus, disk_gb: s.diskGb });
  const { libvirt } = host;
  return {
    name: host.name,
    location: host.location,
    uri: host.uri,
    capacity: wireSize(host.capacity),
    sold: wireSize(host.sold),
    free: wireSize(host.free),
    drained: host.drained,
    servers: host.servers.map((server) => ({
      id: server.id,
      account_id: server.accountId,
      hostname: server.hostname,
      status: server.status,
      plan: server.plan,
      memory_mb: server.memoryMb,
      vcpus: server.vcpus,
      disk_gb: server.diskGb,
    })),
    libvirt:
      libvirt.status !== "ok"
        ? libvirt
        : {
            status: libvirt.status,
            cpus: libvirt.cpus,
            memory_mb: libvirt.memoryMb,
            pool: libvirt.pool && {
              capacity_bytes: libvirt.pool.capacityBytes,
              allocation_bytes: libvirt.pool.allocationBytes,
              available_bytes: libvirt.pool.availableBytes,
            },
            assigned: {
              memory_mb: libvirt.assigned.memoryMb,
              vcpus: libvirt.assigned.vcpus,
              domains: libvirt.assigned.domains,
              running: libvirt.assigned.running,
            },
            other_domains: {
              count: libvirt.otherDomains.count,
              memory_mb: libvirt.otherDomains.memoryMb,
              vcpus: libvirt.otherDomains.vcpus,
            },
            stray_domains: libvirt.strayDomains.map((domain) => ({
              name: domain.name,
              server_id: domain.serverId,
              running: domain.running,
              why: domain.why,
            })),
            missing_domains: libvirt.missingDomains.map((row) => ({
              server_id: row.serverId,
              hostname: row.hostname,
              status: row.status,
            })),
          },
  };
}

export const AdjustmentBody = requestBody(AdjustmentRequestSchema, { amount_usd: "invalid_amount" });
export const SuspendBody = requestBody(SuspendRequestSchema);
export const LiftBody = requestBody(LiftRequestSchema);
export const CloseConsoleBody = requestBody(CloseConsoleRequestSchema);
export const SmtpBody = requestBody(SmtpRequestSchema);
export const DrainBody = requestBody(DrainRequestSchema);
export const ReviewBody = requestBody(ReviewRequestSchema);
export const DecisionBody = requestBody(DecisionRequestSchema);
export const DeactivationBody = requestBody(DeactivationRequestSchema);
export const SignInBody = requestBody(SignInRequestSchema);
