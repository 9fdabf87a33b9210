/**
 * The closed sets of values the tables store. They belong to the database, which keeps them; the domains
 * that give them meaning (the ledger, the job queue, the provisioner, top-ups) import them from here.
 * Types and constants only, so the browser may read them too.
 */

/**
 * Why a balance moved: one ledger row each. `adjustment`: a credit or debit an operator posted by hand, its
 * reason in ledger_adjustments. `resize`: a move to another plan, pro-rated over the paid time left (a debit
 * for an upgrade, a credit for a downgrade).
 */
export type LedgerKind = "topup" | "order" | "renewal" | "refund" | "adjustment" | "resize";

/** A server's billing period. */
export type Cycle = "monthly" | "annual";

export const SERVER_STATUSES = ["provisioning", "active", "suspended", "terminated"] as const;
export type ServerStatus = (typeof SERVER_STATUSES)[number];

export type PowerAction = "start" | "stop" | "reboot";
export type PowerState = "running" | "stopped";

export type RescueState = "entering" | "active" | "leaving";

/**
 * Host work for a server. A password change is run by its request, and recorded here while it runs. A build
 * (provision, reinstall, restore, revive) ends by waiting for the machine's SSH server.
 */
export type JobKind =
  | "provision"
  | "power"
  | "destroy"
  | "reinstall"
  | "password"
  | "snapshot"
  | "restore"
  | "delete_snapshot"
  | "rescue"
  | "leave_rescue"
  | "revive"
  /** Applies the server's firewall (and routes) on its host after its rules changed, or after a host restart. */
  | "firewall"
  | "resize";

/** A PTR record's write to DNS: still to be done (retried with backoff), or done. */
export type PtrState = "pending" | "applied";

/** One rule of a server's firewall as stored (lib/servers/network/rules.ts checks and explains it). */
export type FirewallRule = {
  direction: "in" | "out";
  protocol: "tcp" | "udp" | "icmp" | "any";
  ports: string | null;
  sources: string[];
  destinations: string[];
  action: "accept" | "drop";
  description: string | null;
};

export type JobState = "pending" | "running" | "done" | "failed";

/**
 * Why a snapshot exists: asked for, taken before a reinstall, the last disk of a server whose period lapsed,
 * taken by the server's schedule (rotated: the oldest goes when the limit is reached), or taken before a resize
 * grows the disk.
 */
export const SNAPSHOT_KINDS = ["manual", "reinstall", "resize", "automatic", "expiry"] as const;
export type SnapshotKind = (typeof SNAPSHOT_KINDS)[number];

/** How often a server's automatic snapshots are taken. */
export type ScheduleFrequency = "daily" | "weekly";

/** A resize: queued, changing the machine, putting the old size back after a failure, then done or failed. */
export type ResizeState = "pending" | "running" | "reverting" | "done" | "failed";

/** `deleting`: its volume is being removed; it still holds its space on the host until then. */
export type SnapshotState = "creating" | "available" | "failed" | "deleting";

/**
 * How consistent the copy is: taken from a machine that was off, from a running one whose filesystems the guest
 * agent froze for the moment of the copy, or from a running one without an answering agent (what a power cut
 * would have left: journaling filesystems recover it, writes in flight may be lost).
 */
export type SnapshotConsistency = "powered_off" | "frozen" | "crash_consistent";

/** The top-up states of the API. */
export type TopupStatus = "pending" | "completed" | "expired" | "cancelled";

/** `deposit`: pay to an address; `x402`: a signed USDC authorization settled by the service. */
export type PaymentMethod = "deposit" | "x402";

/** A deposit watcher's push link to its node (lib/rails/deposits/push.ts says what each means). */
export const PUSH_STATUSES = ["ok", "waiting", "degraded", "down"] as const;
export type PushStatus = (typeof PUSH_STATUSES)[number];

/** api (made by the user, listed) | session (made by a dashboard sign-in, expires) */
export type ApiKeyKind = "api" | "session";

/**
 * What an API key may be allowed to do, one scope per kind of operation (lib/api/scopes.ts says what each
 * covers and which others it brings along). A key stores the scopes it holds; one that stores none (NULL)
 * holds every scope, those added later included: the keys made before scopes existed, and dashboard sessions.
 */
export const API_KEY_SCOPES = [
  "servers:read",
  "servers:power",
  "servers:rebuild",
  "servers:console",
  "servers:snapshots",
  "servers:network",
  "servers:credentials",
  "servers:terminate",
  "billing:spend",
  "topups:read",
  "topups:write",
  "account:read",
  "account:write",
  "keys:read",
  "keys:write",
  "webhooks:read",
  "webhooks:write",
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** The scope every debit a key causes needs: the ledger itself refuses a key without it. */
export const SPEND_SCOPE = "billing:spend" satisfies ApiKeyScope;

/** How a key's spend cap resets: at 00:00 UTC each day, each Monday, each first of the month, or never. */
export const SPEND_CAP_PERIODS = ["day", "week", "month", "total"] as const;
export type SpendCapPeriod = (typeof SPEND_CAP_PERIODS)[number];

/** The events an account can be notified of (lib/notifications/types.ts says what each means). */
export const EVENT_TYPES = [
  "topup.payment_seen",
  "topup.credited",
  "server.active",
  "server.build_failed",
  "server.expiring",
  "server.suspended",
  "server.held",
  "server.released",
  "server.terminated",
  "account.balance_low",
  "snapshot.taken",
  "snapshot.restored",
  "snapshot.failed",
  "rescue.entered",
  "rescue.left",
  "console.opened",
  "traffic.threshold_reached",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** webhook: a JSON POST signed after Standard Webhooks; ntfy: a push to an ntfy topic (title and message). */
export type EndpointKind = "webhook" | "ntfy";

export type DeliveryState = "pending" | "sending" | "delivered" | "failed";

/** The operators' roles, least to most (lib/operator/roles.ts says what each may do). */
export const OPERATOR_ROLES = ["read-only", "support", "admin"] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
