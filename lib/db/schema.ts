import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type {
  ApiKeyKind,
  ApiKeyScope,
  Cycle,
  DeliveryState,
  EndpointKind,
  EventType,
  FirewallRule,
  JobKind,
  JobState,
  LedgerKind,
  OperatorRole,
  PaymentMethod,
  PowerAction,
  PowerState,
  PtrState,
  PushStatus,
  RescueState,
  ResizeState,
  ScheduleFrequency,
  ServerStatus,
  SnapshotConsistency,
  SnapshotKind,
  SnapshotState,
  SpendCapPeriod,
  TopupStatus,
} from "./types";

export const accounts = pgTable(
  "accounts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    balanceCents: bigint("balance_cents", { mode: "number" }).notNull().default(0),
    currency: text("currency").notNull().default("USD"),
    loginTokenHash: text("login_token_hash").notNull().unique(),
    totpEnabled: boolean("totp_enabled").notNull().default(false),
    /** The TOTP secret, sealed with ENCRYPTION_KEY; the pending one waits for its first code. */
    totpSecretEnc: text("totp_secret_enc"),
    totpPendingSecretEnc: text("totp_pending_secret_enc"),
    /** The last 30-second step a code was accepted for: a code works once. */
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  // The database itself refuses an overdraft, whatever the code above it does.
  (table) => [check("accounts_balance_non_negative", sql`${table.balanceCents} >= 0`)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    name: text("name"),
    /** api (made by the user, listed) | session (made by a dashboard sign-in, expires) */
    kind: text("kind").$type<ApiKeyKind>().notNull().default("api"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    /** The client address of the use recorded in last_used_at. */
    lastUsedFrom: text("last_used_from"),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /** The scopes the key holds, closed under what each brings along; NULL: every scope (see types.ts). */
    scopes: text("scopes").array().$type<ApiKeyScope[]>(),
    /** CIDRs the key may be used from (IPv4 and IPv6, normalised); NULL: anywhere. */
    allowedNetworks: text("allowed_networks").array(),
    /** The only servers the key may see or touch; NULL: every server of the account. */
    serverIds: integer("server_ids").array(),
    /** At most this much may be debited by the key and the keys it made, per period; NULL: no cap. */
    spendCapCents: bigint("spend_cap_cents", { mode: "number" }),
    spendCapPeriod: text("spend_cap_period").$type<SpendCapPeriod>(),
    /** The key that made this one (its rights bound this one's, and its cap counts this one's spending). */
    parentKeyId: integer("parent_key_id").references((): AnyPgColumn => apiKeys.id, { onDelete: "cascade" }),
  },
  (table) => [
    index("api_keys_account_idx").on(table.accountId),
    index("api_keys_parent_idx").on(table.parentKeyId),
    check(
      "api_keys_spend_cap_check",
      sql`(${table.spendCapCents} IS NULL) = (${table.spendCapPeriod} IS NULL) AND ${table.spendCapCents} >= 0 AND ${table.spendCapPeriod} IN ('day', 'week', 'month', 'total')`,
    ),
  ],
);

/**
 * Recovery codes of an account with TOTP on: each a salted scrypt hash (never the code), usable once. The set
 * is replaced as a whole when TOTP is turned on or the owner asks for new codes, and goes when TOTP is off.
 */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [index("recovery_codes_account_idx").on(table.accountId)],
);

export const servers = pgTable(
  "servers",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    plan: text("plan").notNull(),
    location: text("location").notNull(),
    os: text("os").notNull(),
    hostname: text("hostname").notNull(),
    cycle: text("cycle").$type<Cycle>().notNull(),
    priceCents: bigint("price_cents", { mode: "number" }).notNull(),
    /** provisioning | active | suspended | terminated */
    status: text("status").$type<ServerStatus>().notNull().default("provisioning"),
    ip: text("ip"),
    /** AES-256-GCM of the root password, authenticated with the server id. */
    rootPasswordEnc: text("root_password_enc"),
    autoRenew: boolean("auto_renew").notNull().default(false),
    /** running | stopped; null until provisioned and after termination. */
    powerState: text("power_state").$type<PowerState>(),
    /** Unused since builds are jobs (server_jobs.run_after); kept for rows written before. */
    provisionReadyAt: timestamp("provision_ready_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    suspendedAt: timestamp("suspended_at", { withTimezone: true, mode: "date" }),
    terminatedAt: timestamp("terminated_at", { withTimezone: true, mode: "date" }),
    /** The hypervisor host the server is placed on; null for the simulated provisioner without hosts. */
    hypervisor: text("hypervisor"),
    /** What the server gets (the plan's size, capped by SERVER_MEMORY_CAP_MB / SERVER_DISK_CAP_GB). */
    memoryMb: integer("memory_mb"),
    vcpus: integer("vcpus"),
    diskGb: integer("disk_gb"),
    /** SSH port at `ip` (22 unless forwarded) and the SHA256 fingerprint of the host key we generated. */
    sshPort: integer("ssh_port"),
    sshHostKeyFingerprint: text("ssh_host_key_fingerprint"),
    /** JSON array of the OpenSSH public keys installed for root. */
    sshKeys: text("ssh_keys"),
    /** Why the server is in its state when that is not the usual path (a failed build, a vanished domain). */
    statusReason: text("status_reason"),
    /** Raised by a trigger on every update (migration 0012); see lib/servers/read-cache.ts. */
    revision: integer("revision").notNull().default(1),
    /** A server terminated because its period lapsed keeps its last disk (a snapshot) until then. */
    retainedUntil: timestamp("retained_until", { withTimezone: true, mode: "date" }),
    /** entering | active | leaving while the server boots the rescue system; null otherwise. */
    rescueState: text("rescue_state").$type<RescueState>(),
    rescueSince: timestamp("rescue_since", { withTimezone: true, mode: "date" }),
    /** The rescue system's temporary root password, sealed like the root password. */
    rescuePasswordEnc: text("rescue_password_enc"),
    rescueHostKeyFingerprint: text("rescue_host_key_fingerprint"),
    /** The address and port a terminated server had: given back on renewal where still free. */
    lastIp: text("last_ip"),
    lastSshPort: integer("last_ssh_port"),
    /**
     * An operator's hold (lib/servers/holds.ts): since when, the reason its owner reads, whether its paid period
     * waits meanwhile, and the status and power state it had, to be given back when the hold is lifted.
     */
    heldSince: timestamp("held_since", { withTimezone: true, mode: "date" }),
    heldReason: text("held_reason"),
    heldPausesPeriod: boolean("held_pauses_period"),
    heldPriorStatus: text("held_prior_status").$type<ServerStatus>(),
    heldPriorPower: text("held_prior_power").$type<PowerState>(),
    /** The server's routed IPv6 /64 (`2001:db8:1:5::/64`), held while it or its kept disk lives. */
    ipv6Prefix: text("ipv6_prefix"),
    /**
     * The owner's cloud-init user data (lib/servers/user-data.ts): sealed like the root password until the build
     * that uses it is done, then dropped; its SHA-256 and size stay, the only things ever shown of it.
     */
    userDataEnc: text("user_data_enc"),
    userDataSha256: text("user_data_sha256"),
    userDataBytes: integer("user_data_bytes"),
  },
  (table) => [
    index("servers_account_id_idx").on(table.accountId, table.id),
    index("servers_status_expiry_idx").on(table.status, table.expiresAt),
    uniqueIndex("servers_ip_port_idx").on(table.ip, table.sshPort).where(sql`status <> 'terminated'`),
    index("servers_hypervisor_idx").on(table.hypervisor).where(sql`status <> 'terminated'`),
    index("servers_retained_idx").on(table.retainedUntil).where(sql`retained_until IS NOT NULL`),
    index("servers_held_idx").on(table.heldSince).where(sql`held_since IS NOT NULL`),
    uniqueIndex("servers_ipv6_prefix_idx").on(table.ipv6Prefix).where(sql`ipv6_prefix IS NOT NULL`),
    check("servers_rescue_state_check", sql`${table.rescueState} IN ('entering', 'active', 'leaving')`),
  ],
);

/**
 * A copy of a server's disk, a volume of its host's pool (lib/servers/snapshots). `reserved_gb` is what it
 * holds of the host's disk while being taken; once taken, its measured size counts instead.
 */
export const snapshots = pgTable(
  "snapshots",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    serverId: integer("server_id")
      .notNull()
      .references(() => servers.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** manual (asked for) | reinstall (taken before one) | expiry (the last disk of a lapsed server) */
    kind: text("kind").$type<SnapshotKind>().notNull(),
    /** creating | available | failed | deleting */
    state: text("state").$type<SnapshotState>().notNull().default("creating"),
    /** The system on the disk when it was taken: a restore gives the server this OS again. */
    os: text("os").notNull(),
    hypervisor: text("hypervisor"),
    /** The volume in the host's pool; null for the simulated provisioner. */
    volume: text("volume"),
    sizeBytes: bigint("size_bytes", { mode: "number" }),
    reservedGb: integer("reserved_gb").notNull().default(0),
    consistency: text("consistency").$type<SnapshotConsistency>(),
    failureReason: text("failure_reason"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("snapshots_server_idx").on(table.serverId, table.id),
    index("snapshots_hypervisor_idx").on(table.hypervisor).where(sql`hypervisor IS NOT NULL`),
    check(
      "snapshots_kind_check",
      sql`${table.kind} IN ('manual', 'reinstall', 'expiry', 'automatic', 'resize')`,
    ),
    check("snapshots_state_check", sql`${table.state} IN ('creating', 'available', 'failed', 'deleting')`),
    check(
      "snapshots_consistency_check",
      sql`${table.consistency} IN ('powered_off', 'frozen', 'crash_consistent')`,
    ),
  ],
);

/**
 * A server moved to another plan (lib/servers/resize): what it was and becomes, the pro-rated amount (positive:
 * charged at the request; negative: credited once done), and the machine's downtime as measured.
 */
export const serverResizes = pgTable(
  "server_resizes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    serverId: integer("server_id")
      .notNull()
      .references(() => servers.id, { onDelete: "cascade" }),
    hypervisor: text("hypervisor"),
    /** pending | running | reverting (back to the old size after a failure) | done | failed */
    state: text("state").$type<ResizeState>().notNull().default("pending"),
    fromPlan: text("from_plan").notNull(),
    toPlan: text("to_plan").notNull(),
    fromMemoryMb: integer("from_memory_mb").notNull(),
    fromVcpus: integer("from_vcpus").notNull(),
    fromDiskGb: integer("from_disk_gb").notNull(),
    toMemoryMb: integer("to_memory_mb").notNull(),
    toVcpus: integer("to_vcpus").notNull(),
    toDiskGb: integer("to_disk_gb").notNull(),
    fromPriceCents: bigint("from_price_cents", { mode: "number" }).notNull(),
    toPriceCents: bigint("to_price_cents", { mode: "number" }).notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    growDisk: boolean("grow_disk").notNull(),
    /** Whether the machine ran when asked: a stopped one is changed and left stopped. */
    wasRunning: boolean("was_running").notNull(),
    /** The snapshot taken of the disk at rest before it grows. */
    snapshotId: integer("snapshot_id").references(() => snapshots.id, { onDelete: "set null" }),
    pricedAt: timestamp("priced_at", { withTimezone: true, mode: "date" }).notNull(),
    secondsLeft: integer("seconds_left").notNull(),
    periodSeconds: integer("period_seconds").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** When the machine was asked to shut down: its downtime runs from here until SSH answers again. */
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
    downtimeMs: integer("downtime_ms"),
    failureReason: text("failure_reason"),
  },
  (table) => [
    index("server_resizes_server_idx").on(table.serverId, table.id),
    index("server_resizes_done_idx")
      .on(table.hypervisor, table.growDisk, table.finishedAt)
      .where(sql`state = 'done'`),
    check(
      "server_resizes_state_check",
      sql`${table.state} IN ('pending', 'running', 'reverting', 'done', 'failed')`,
    ),
  ],
);

/**
 * A server's automatic snapshots (lib/servers/snapshots/schedule.ts): daily or weekly (ISO weekday, 1 = Monday)
 * at `hour` UTC. `occurrence_at` is the run being served; `next_at` when the background pass acts next (later
 * than the occurrence while the server is busy).
 */
export const snapshotSchedules = pgTable(
  "snapshot_schedules",
  {
    serverId: integer("server_id")
      .primaryKey()
      .references(() => servers.id, { onDelete: "cascade" }),
    frequency: text("frequency").$type<ScheduleFrequency>().notNull(),
    hour: integer("hour").notNull(),
    weekday: integer("weekday"),
    occurrenceAt: timestamp("occurrence_at", { withTimezone: true, mode: "date" }).notNull(),
    nextAt: timestamp("next_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    index("snapshot_schedules_next_idx").on(table.nextAt),
    check("snapshot_schedules_frequency_check", sql`${table.frequency} IN ('daily', 'weekly')`),
    check("snapshot_schedules_hour_check", sql`${table.hour} BETWEEN 0 AND 23`),
    check(
      "snapshot_schedules_weekday_check",
      sql`(${table.frequency} = 'daily' AND ${table.weekday} IS NULL) OR (${table.frequency} = 'weekly' AND ${table.weekday} BETWEEN 1 AND 7)`,
    ),
  ],
);

/** Hypervisor hosts from HYPERVISORS; an order locks its host's row while it reserves capacity. */
export const hypervisors = pgTable("hypervisors", {
  name: text("name").primaryKey(),
  location: text("location").notNull(),
  uri: text("uri").notNull(),
  memoryMb: integer("memory_mb").notNull(),
  vcpus: integer("vcpus").notNull(),
  diskGb: integer("disk_gb").notNull(),
  /** A drained host takes no new orders; what runs on it stays. */
  drainedAt: timestamp("drained_at", { withTimezone: true, mode: "date" }),
  drainReason: text("drain_reason"),
  /**
   * The background's reading of the host's machines (lib/servers/host-readings.ts): when it last answered, and
   * since when every reading has failed (null while it answers). The status page's host states come from these.
   */
  readAt: timestamp("read_at", { withTimezone: true, mode: "date" }),
  failingSince: timestamp("failing_since", { withTimezone: true, mode: "date" }),
});

/**
 * Host work for a server (build, power action, destruction), done outside any transaction: the request or
 * order records the job, a worker takes it with SKIP LOCKED, calls the host, and writes the outcome back.
 */
export const serverJobs = pgTable(
  "server_jobs",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    serverId: integer("server_id")
      .notNull()
      .references(() => servers.id, { onDelete: "cascade" }),
    /** provision | power | destroy | reinstall | password (run by its request) | snapshot | restore | ... (JobKind) */
    kind: text("kind").$type<JobKind>().notNull(),
    /** start | stop | reboot for power jobs. */
    action: text("action").$type<PowerAction>(),
    /** pending | running | done | failed */
    state: text("state").$type<JobState>().notNull().default("pending"),
    /** A provision or reinstall job's step: create, then boot (waiting for SSH). */
    phase: text("phase"),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    runAfter: timestamp("run_after", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** A running job whose lease has passed was abandoned (its worker died) and is taken again. */
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    /** When a provision job's boot phase gives up waiting for SSH. */
    deadline: timestamp("deadline", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    /** The snapshot a snapshot, restore or delete_snapshot job (or a reinstall taking one first) works on. */
    snapshotId: integer("snapshot_id").references(() => snapshots.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("server_jobs_due_idx").on(table.state, table.runAfter),
    index("server_jobs_server_idx").on(table.serverId),
    index("server_jobs_open_idx").on(table.runAfter, table.id).where(sql`state IN ('pending', 'running')`),
    index("server_jobs_open_server_idx")
      .on(table.serverId, table.id)
      .where(sql`state IN ('pending', 'running')`),
    index("server_jobs_finished_idx").on(table.finishedAt).where(sql`state IN ('done', 'failed')`),
    check(
      "server_jobs_kind_check",
      sql`${table.kind} IN ('provision', 'power', 'destroy', 'reinstall', 'password', 'snapshot', 'restore', 'delete_snapshot', 'rescue', 'leave_rescue', 'revive', 'firewall', 'resize')`,
    ),
    check("server_jobs_state_check", sql`${table.state} IN ('pending', 'running', 'done', 'failed')`),
  ],
);

/**
 * One row per order whose build ended, for the status page (lib/status): where and what was ordered, when, when
 * the build ended and whether the server became active, and when its SSH server first answered the build's
 * probe (null for the simulated provisioner, which runs no machine). It names no account and no server: the
 * image is kept as ordered, since a later reinstall changes the server's. Pruned after 30 days.
 */
export const orderOutcomes = pgTable(
  "order_outcomes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    location: text("location").notNull(),
    os: text("os").notNull(),
    orderedAt: timestamp("ordered_at", { withTimezone: true, mode: "date" }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true, mode: "date" }).notNull(),
    succeeded: boolean("succeeded").notNull(),
    sshAnsweredAt: timestamp("ssh_answered_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [index("order_outcomes_finished_idx").on(table.finishedAt)],
);

/**
 * A server's firewall (lib/servers/network): its ordered rules, their revision and the one its host applied,
 * and the operator's SMTP decision. No row: no rules, outbound SMTP blocked.
 */
export const serverFirewalls = pgTable("server_firewalls", {
  serverId: integer("server_id")
    .primaryKey()
    .references(() => servers.id, { onDelete: "cascade" }),
  rules: jsonb("rules").$type<FirewallRule[]>().notNull().default([]),
  revision: integer("revision").notNull().default(0),
  appliedRevision: integer("applied_revision"),
  appliedAt: timestamp("applied_at", { withTimezone: true, mode: "date" }),
  /** Why the host did not take the latest revision (its own words, for the owner: the job retries). */
  applyError: text("apply_error"),
  smtpOpen: boolean("smtp_open").notNull().default(false),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * The PTR of one address as DNS should have it (`name` null: none), written to PowerDNS by a background pass
 * with retries: `pending` until it has been. `serverId` null once the address went back to its pool.
 */
export const ptrRecords = pgTable(
  "ptr_records",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    address: text("address").notNull().unique(),
    serverId: integer("server_id").references(() => servers.id, { onDelete: "set null" }),
    name: text("name"),
    /** Set by the owner; false: the generated default name. */
    custom: boolean("custom").notNull().default(false),
    /** The reverse zone's size: 24 for IPv4, the host prefix's length (to a nibble) for IPv6. */
    zonePrefixLength: integer("zone_prefix_length").notNull(),
    state: text("state").$type<PtrState>().notNull().default("pending"),
    /** Raised on every change, so a write to DNS of an older version does not mark a newer one done. */
    version: integer("version").notNull().default(1),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastError: text("last_error"),
    appliedAt: timestamp("applied_at", { withTimezone: true, mode: "date" }),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    index("ptr_records_server_idx").on(table.serverId).where(sql`server_id IS NOT NULL`),
    index("ptr_records_due_idx").on(table.nextAttemptAt).where(sql`state = 'pending'`),
    check("ptr_records_state_check", sql`${table.state} IN ('pending', 'applied')`),
  ],
);

/** The next host number to hand out in each location's address pool. */
export const ipCounters = pgTable("ip_counters", {
  location: text("location").primaryKey(),
  nextHost: integer("next_host").notNull(),
});

/**
 * Every balance change, written in the same transaction as the balance update. `reference` is unique, so
 * one event (a top-up credit, an order) can never move money twice; the sum per account equals its balance.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    balanceAfterCents: bigint("balance_after_cents", { mode: "number" }).notNull(),
    kind: text("kind").$type<LedgerKind>().notNull(),
    reference: text("reference").notNull().unique(),
    /** The API key whose request caused this movement; NULL for the account's own (background, operator). */
    apiKeyId: integer("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    index("ledger_entries_account_idx").on(table.accountId),
    // A key's spending in a period: its debits, newest last.
    index("ledger_entries_api_key_idx")
      .on(table.apiKeyId, table.createdAt)
      .where(sql`${table.apiKeyId} IS NOT NULL`),
    check("ledger_entries_balance_after_non_negative", sql`${table.balanceAfterCents} >= 0`),
  ],
);

export const topups = pgTable(
  "topups",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    ref: text("ref").notNull().unique(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** pending | completed | expired | cancelled */
    status: text("status").$type<TopupStatus>().notNull().default("pending"),
    /** deposit (an address to pay) | x402 (a signed USDC authorization settled by us) */
    method: text("method").$type<PaymentMethod>().notNull(),
    coin: text("coin").notNull(),
    network: text("network").notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    depositAddress: text("deposit_address").notNull(),
    derivationIndex: integer("derivation_index"),
    /** The amount asked for, in the coin's smallest unit (wei, satoshi, piconero...): may exceed int64. */
    depositUnits: numeric("deposit_units", { precision: 78, scale: 0 }).notNull(),
    /**
     * The USD price of one coin locked when the top-up was created: the asked amount is paid at it, and
     * coins outside the quote are credited at no more than it.
     */
    rateUsd: numeric("rate_usd", { precision: 30, scale: 8 }).notNull(),
    rateSource: text("rate_source").notNull(),
    confirmationsRequired: integer("confirmations_required").notNull(),
    qrDataUri: text("qr_data_uri"),
    /** Raised by a trigger on every update (migration 0031); see lib/topups/reads.ts. */
    revision: integer("revision").notNull().default(1),
    paymentUri: text("payment_uri"),
    creditedCents: bigint("credited_cents", { mode: "number" }).notNull().default(0),
    payer: text("payer"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    /** When the status last moved away from pending. */
    closedAt: timestamp("closed_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("topups_account_idx").on(table.accountId, table.id),
    index("topups_account_created_idx").on(table.accountId, table.createdAt).where(sql`method = 'deposit'`),
    index("topups_network_status_idx").on(table.network, table.status),
    index("topups_pending_expiry_idx")
      .on(table.expiresAt)
      .where(sql`method = 'deposit' AND status = 'pending'`),
    index("topups_closed_idx").on(table.closedAt).where(sql`method = 'deposit' AND closed_at IS NOT NULL`),
    uniqueIndex("topups_network_address_idx")
      .on(table.network, table.depositAddress)
      .where(sql`method = 'deposit'`),
    check("topups_credited_non_negative", sql`${table.creditedCents} >= 0`),
  ],
);

/** A transfer seen on a chain to a top-up's deposit address; one row per (network, tx, log index). */
export const depositPayments = pgTable(
  "deposit_payments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    topupId: integer("topup_id")
      .notNull()
      .references(() => topups.id, { onDelete: "cascade" }),
    /** Raised by a trigger on every update (migration 0031); see lib/topups/reads.ts. */
    revision: integer("revision").notNull().default(1),
    network: text("network").notNull(),
    txHash: text("tx_hash").notNull(),
    /** -1 for a native transfer, else the log index of the token Transfer event. */
    logIndex: integer("log_index").notNull(),
    amountUnits: numeric("amount_units", { precision: 78, scale: 0 }).notNull(),
    blockNumber: bigint("block_number", { mode: "number" }),
    blockHash: text("block_hash"),
    confirmations: integer("confirmations").notNull().default(0),
    /** When a watcher first saw the payment (business time): before the top-up's expires_at, it pays the quote. */
    seenAt: timestamp("seen_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** When the payment first counted toward its top-up's credit. */
    confirmedAt: timestamp("confirmed_at", { withTimezone: true, mode: "date" }),
    /**
     * The chain's time of the block that gave the payment its last required confirmation (its header's,
     * whole seconds), written before it counts; null where the watcher cannot read it. Block to credit:
     * `confirmed_at - confirming_block_at`.
     */
    confirmingBlockAt: timestamp("confirming_block_at", { withTimezone: true, mode: "date" }),
    /** When a payment that had already counted lost its block to a reorg: the operator must look at it. */
    reorgedAt: timestamp("reorged_at", { withTimezone: true, mode: "date" }),
    /** When the transaction left the mempool unmined (replaced or evicted): not counted unless seen again. */
    droppedAt: timestamp("dropped_at", { withTimezone: true, mode: "date" }),
    /**
     * What the payment credited when it counted (all null before): `quoteUnits` paid the asked amount and
     * credited `quoteCents` at the quote; the rest credited `extraCents` at `extraRateUsd`, the lower of the
     * locked rate and the market's then (null when nothing was left over).
     */
    quoteUnits: numeric("quote_units", { precision: 78, scale: 0 }),
    quoteCents: bigint("quote_cents", { mode: "number" }),
    extraRateUsd: numeric("extra_rate_usd", { precision: 30, scale: 8 }),
    extraCents: bigint("extra_cents", { mode: "number" }),
    /**
     * The ledger adjustment that settled this payment before it counted (a dropped one credited by hand): it
     * counts as settled (`confirmed_at` set, nothing credited through its top-up), whatever the chain shows later.
     */
    settledBy: text("settled_by"),
  },
  (table) => [
    uniqueIndex("deposit_payments_tx_idx").on(table.network, table.txHash, table.logIndex),
    index("deposit_payments_topup_idx").on(table.topupId),
    // What watchers re-check each pass: payments still confirming, and those in recent blocks.
    index("deposit_payments_open_idx")
      .on(table.network)
      .where(sql`confirmed_at IS NULL OR reorged_at IS NOT NULL`),
    index("deposit_payments_block_idx").on(table.network, table.blockNumber),
    index("deposit_payments_confirmed_at_idx").on(table.confirmedAt).where(sql`confirmed_at IS NOT NULL`),
    check("deposit_payments_credit_non_negative", sql`${table.quoteCents} >= 0 AND ${table.extraCents} >= 0`),
  ],
);

/** The next unused derivation index per deposit chain, so addresses stay dense for the operator's wallet. */
export const depositIndexes = pgTable("deposit_indexes", {
  chain: text("chain").primaryKey(),
  nextIndex: integer("next_index").notNull(),
});

/** How far a chain watcher has scanned, and which instance holds the lease to scan it now. */
export const chainCursors = pgTable("chain_cursors", {
  network: text("network").primaryKey(),
  scannedBlock: bigint("scanned_block", { mode: "number" }).notNull(),
  /** Hash of the block at scanned_block, so a reorg below the cursor is noticed. */
  scannedHash: text("scanned_hash"),
  headBlock: bigint("head_block", { mode: "number" }).notNull(),
  /** The last poll: when it ran and, if it failed, why (the node is then reported down). */
  checkedAt: timestamp("checked_at", { withTimezone: true, mode: "date" }),
  lastError: text("last_error"),
  leaseOwner: text("lease_owner"),
  leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
  /**
   * The node's push as the lease holder last saw it (lib/rails/deposits/push): `ok`, `waiting`, `degraded` or
   * `down`, null when the watcher has none; the notices it found lost, and when the last one came.
   */
  pushStatus: text("push_status").$type<PushStatus>(),
  pushMissed: integer("push_missed").notNull().default(0),
  pushNoticeAt: timestamp("push_notice_at", { withTimezone: true, mode: "date" }),
  /**
   * What the node said of itself at the last poll (null: its kind does not say): its peers, the height of the
   * best chain it has heard of, and its newest block's time. Health judges from them whether it is cut off.
   */
  nodePeers: integer("node_peers"),
  nodeHeaders: bigint("node_headers", { mode: "number" }),
  nodeTipAt: timestamp("node_tip_at", { withTimezone: true, mode: "date" }),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * One EIP-3009 authorization presented to us. The unique key is the chain's own replay key
 * (network, token, payer, nonce), claimed before settlement so one authorization credits at most once.
 */
export const x402Authorizations = pgTable(
  "x402_authorizations",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    network: text("network").notNull(),
    asset: text("asset").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /**
     * in_flight (being settled under a lease) | settled (credited by its top-up) | adjusted (its outcome was
     * never recorded and an operator's adjustment settled it: the rail never credits it)
     */
    state: text("state").$type<"in_flight" | "settled" | "adjusted">().notNull(),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    topupId: integer("topup_id").references(() => topups.id, { onDelete: "set null" }),
    txHash: text("tx_hash"),
    /** The ledger adjustment that settled it (state `adjusted`). */
    adjustmentReference: text("adjustment_reference"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("x402_authorizations_nonce_idx").on(table.network, table.asset, table.payer, table.nonce),
  ],
);

/**
 * An order paid with x402 whose authorization is held, not settled, until the server answers: `held` while it
 * is built; `due` once it is active (settled by the next background pass: a top-up credited and the order
 * charged, in one transaction); `settled`; `released` when the build failed or the order ended before it was
 * built (the authorization is never submitted); `failed` when it could not be settled (the server is then
 * suspended as an unpaid one). The signed payment is kept as sent, to be settled as the same request would be.
 */
export const heldOrderPayments = pgTable(
  "held_order_payments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    serverId: integer("server_id")
      .notNull()
      .unique()
      .references(() => servers.id, { onDelete: "cascade" }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull(),
    /** The x402 wire version the payment came in (1: X-PAYMENT, 2: PAYMENT-SIGNATURE). */
    version: integer("version").$type<1 | 2>().notNull(),
    payment: text("payment").notNull(),
    /** The offer it answers: its resource URL and validity window, reproduced to settle it. */
    resource: text("resource").notNull(),
    maxTimeoutSeconds: integer("max_timeout_seconds").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    validBefore: timestamp("valid_before", { withTimezone: true, mode: "date" }).notNull(),
    state: text("state").$type<"held" | "due" | "settled" | "released" | "failed">().notNull(),
    /** Why it failed, or what the last attempt to settle it met. */
    reason: text("reason"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    uniqueIndex("held_order_payments_authorization_idx").on(table.payer, table.nonce),
    index("held_order_payments_due_idx").on(table.state),
  ],
);

/** Stored outcomes of requests sent with an Idempotency-Key, scoped per account and operation. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    /** in_progress | completed */
    state: text("state").$type<"in_progress" | "completed">().notNull(),
    statusCode: integer("status_code"),
    responseBody: text("response_body"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.scope, table.key] }),
    index("idempotency_keys_created_idx").on(table.createdAt),
  ],
);

/**
 * Rate-limit counters on PostgreSQL: one row per limit and client key holding its current fixed window,
 * counted by an atomic upsert so every app instance enforces the same limit. Rows past `expires_at` are swept.
 */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    name: text("name").notNull(),
    key: text("key").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true, mode: "date" }).notNull(),
    count: integer("count").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    primaryKey({ name: "rate_limit_counters_pk", columns: [table.name, table.key] }),
    index("rate_limit_counters_expires_idx").on(table.expiresAt),
  ],
);

/**
 * A server's usage per time bucket, at three resolutions (lib/servers/metrics/tiers.ts): every reading adds
 * into the bucket of each, and rows past a tier's retention are deleted, so a server has a bounded number of
 * rows. `seconds` is how much of the bucket was measured (the machine ran and was read), so rates divide by it.
 */
export const serverMetrics = pgTable(
  "server_metrics",
  {
    serverId: integer("server_id")
      .notNull()
      .references(() => servers.id, { onDelete: "cascade" }),
    stepSeconds: integer("step_seconds").notNull(),
    bucket: timestamp("bucket", { withTimezone: true, mode: "date" }).notNull(),
    seconds: integer("seconds").notNull(),
    /** Readings that reported the guest's memory in use, and their sum (KiB): the bucket's average. */
    memorySamples: integer("memory_samples").notNull(),
    memoryKibSum: bigint("memory_kib_sum", { mode: "number" }).notNull(),
    cpuMs: bigint("cpu_ms", { mode: "number" }).notNull(),
    /** Bytes the server received (rx) and sent (tx), read from and written to its disks. */
    rxBytes: bigint("rx_bytes", { mode: "number" }).notNull(),
    txBytes: bigint("tx_bytes", { mode: "number" }).notNull(),
    readBytes: bigint("read_bytes", { mode: "number" }).notNull(),
    writeBytes: bigint("write_bytes", { mode: "number" }).notNull(),
  },
  (table) => [
    primaryKey({ name: "server_metrics_pk", columns: [table.serverId, table.stepSeconds, table.bucket] }),
    check("server_metrics_step_check", sql`${table.stepSeconds} IN (60, 300, 3600)`),
  ],
);

/**
 * A server's traffic per period (a calendar month of its paid period) against its allowance, with the moments
 * it reached 80 % and 100 %: facts a notification can announce later.
 */
export const serverTraffic = pgTable(
  "server_traffic",
  {
    serverId: integer("server_id")
      .notNull()
      .references(() => servers.id, { onDelete: "cascade" }),
    periodStart: timestamp("period_start", { withTimezone: true, mode: "date" }).notNull(),
    periodEnd: timestamp("period_end", { withTimezone: true, mode: "date" }).notNull(),
    allowanceBytes: bigint("allowance_bytes", { mode: "number" }).notNull(),
    rxBytes: bigint("rx_bytes", { mode: "number" }).notNull().default(0),
    txBytes: bigint("tx_bytes", { mode: "number" }).notNull().default(0),
    reached80At: timestamp("reached_80_at", { withTimezone: true, mode: "date" }),
    reached100At: timestamp("reached_100_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    primaryKey({ name: "server_traffic_pk", columns: [table.serverId, table.periodStart] }),
    check("server_traffic_period_check", sql`${table.periodEnd} > ${table.periodStart}`),
  ],
);

/**
 * Per server: the last reading of its run counters (the next reading counts from it), and the network slowdown
 * in force on its host (set when its host confirmed it).
 */
export const serverMetricState = pgTable("server_metric_state", {
  serverId: integer("server_id")
    .primaryKey()
    .references(() => servers.id, { onDelete: "cascade" }),
  readAt: timestamp("read_at", { withTimezone: true, mode: "date" }).notNull(),
  cpuMs: bigint("cpu_ms", { mode: "number" }).notNull(),
  rxBytes: bigint("rx_bytes", { mode: "number" }).notNull(),
  txBytes: bigint("tx_bytes", { mode: "number" }).notNull(),
  readBytes: bigint("read_bytes", { mode: "number" }).notNull(),
  writeBytes: bigint("write_bytes", { mode: "number" }).notNull(),
  slowedMbps: integer("slowed_mbps"),
  slowedAt: timestamp("slowed_at", { withTimezone: true, mode: "date" }),
});

/**
 * One row per console ticket, and so per console session: who asked for it, for which server, from where,
 * when it was opened, from where, and when and why it closed. The operator's record of who reached which
 * machine's console; what was typed is never stored. The ticket itself is kept only as its SHA-256.
 */
export const consoleSessions = pgTable(
  "console_sessions",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    serverId: integer("server_id")
      .notNull()
      .references(() => servers.id, { onDelete: "cascade" }),
    ticketHash: text("ticket_hash").notNull().unique(),
    ticketExpiresAt: timestamp("ticket_expires_at", { withTimezone: true, mode: "date" }).notNull(),
    requestedAt: timestamp("requested_at", { withTimezone: true, mode: "date" }).notNull(),
    requestedFrom: text("requested_from").notNull(),
    openedAt: timestamp("opened_at", { withTimezone: true, mode: "date" }),
    openedFrom: text("opened_from"),
    /** Moved forward by the instance holding the open session; a session not seen for a while is gone. */
    seenAt: timestamp("seen_at", { withTimezone: true, mode: "date" }),
    closedAt: timestamp("closed_at", { withTimezone: true, mode: "date" }),
    closeReason: text("close_reason"),
    /** The key or dashboard session the ticket was requested with: revoking it closes the console. */
    keyId: integer("key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    /** When the machine's console stream gave its first byte (on a real host, virsh saying it is connected). */
    firstByteAt: timestamp("first_byte_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("console_sessions_account_open_idx").on(table.accountId).where(sql`${table.closedAt} IS NULL`),
    index("console_sessions_server_idx").on(table.serverId),
    index("console_sessions_closed_idx").on(table.closedAt).where(sql`${table.closedAt} IS NOT NULL`),
    index("console_sessions_requested_idx").on(table.requestedAt),
  ],
);

/**
 * Where an account's notifications go (lib/notifications): a webhook signed after the Standard Webhooks
 * specification (its secret sealed with ENCRYPTION_KEY; during a rotation the previous one signs too, until
 * `previous_secret_expires_at`), or an ntfy topic (its optional access token sealed the same way).
 */
export const notificationEndpoints = pgTable(
  "notification_endpoints",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    kind: text("kind").$type<EndpointKind>().notNull(),
    url: text("url").notNull(),
    description: text("description"),
    eventTypes: text("event_types").array().$type<EventType[]>().notNull(),
    secretEnc: text("secret_enc"),
    previousSecretEnc: text("previous_secret_enc"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true, mode: "date" }),
    enabled: boolean("enabled").notNull().default(true),
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
    disabledReason: text("disabled_reason"),
    /** The first failed attempt since the last success: an endpoint failing for days is disabled. */
    failingSince: timestamp("failing_since", { withTimezone: true, mode: "date" }),
    lastSuccessAt: timestamp("last_success_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    index("notification_endpoints_account_idx").on(table.accountId),
    check("notification_endpoints_kind_check", sql`${table.kind} IN ('webhook', 'ntfy')`),
  ],
);

/**
 * The outbox: one row per fact, written in the transaction that made the change it announces (only when an
 * endpoint of the account listens). `fact_key` names the fact, so it is announced once however often the code
 * that records it runs; `payload` is the JSON body every delivery and retry sends unchanged, under the
 * `webhook-id` `public_id`.
 */
export const notificationEvents = pgTable(
  "notification_events",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    publicId: text("public_id").notNull().unique(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    type: text("type").$type<EventType | "webhook.test">().notNull(),
    factKey: text("fact_key").unique(),
    payload: text("payload").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    index("notification_events_account_idx").on(table.accountId, table.id),
    index("notification_events_occurred_idx").on(table.occurredAt),
  ],
);

/**
 * One event for one endpoint. A worker takes a due one with SKIP LOCKED and marks it `sending` with
 * `next_attempt_at` as its lease (a worker that died is replaced once it passes), sends with no transaction
 * open, and writes the outcome: delivered, due again later (the retry schedule), or failed.
 */
export const notificationDeliveries = pgTable(
  "notification_deliveries",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    eventId: integer("event_id")
      .notNull()
      .references(() => notificationEvents.id, { onDelete: "cascade" }),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => notificationEndpoints.id, { onDelete: "cascade" }),
    state: text("state").$type<DeliveryState>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }),
    /** The next attempt was asked for by its owner (a redelivery): it is made once, without retries. */
    manual: boolean("manual").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
    failureReason: text("failure_reason"),
  },
  (table) => [
    unique("notification_deliveries_event_endpoint_unique").on(table.eventId, table.endpointId),
    index("notification_deliveries_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`state IN ('pending', 'sending')`),
    index("notification_deliveries_endpoint_idx").on(table.endpointId, table.id),
    check(
      "notification_deliveries_state_check",
      sql`${table.state} IN ('pending', 'sending', 'delivered', 'failed')`,
    ),
  ],
);

/** Every attempt at a delivery: when it was due and when it went, how long it took and what came back. */
export const notificationAttempts = pgTable(
  "notification_attempts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: integer("delivery_id")
      .notNull()
      .references(() => notificationDeliveries.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    manual: boolean("manual").notNull(),
    queuedAt: timestamp("queued_at", { withTimezone: true, mode: "date" }).notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true, mode: "date" }).notNull(),
    durationMs: integer("duration_ms").notNull(),
    responseStatus: integer("response_status"),
    error: text("error"),
    /** The first bytes of the answer (RESPONSE_EXCERPT_BYTES), never more. */
    responseExcerpt: text("response_excerpt"),
    succeeded: boolean("succeeded").notNull(),
  },
  (table) => [index("notification_attempts_delivery_idx").on(table.deliveryId, table.id)],
);

/**
 * The people who run the service: made on the machine (`npm run operator:add`), never by a request. They sign
 * in with a secret (kept as its SHA-256) and a TOTP code (the secret sealed with ENCRYPTION_KEY, each code
 * used once), and hold a role. They are not customers: no customer table or credential is involved.
 */
export const operators = pgTable(
  "operators",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    name: text("name").notNull().unique(),
    role: text("role").$type<OperatorRole>().notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    totpSecretEnc: text("totp_secret_enc").notNull(),
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Deactivated (a departing operator): no sign-in, no live session; kept for the audit log. */
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    check("operators_role_check", sql`${table.role} IN ('read-only', 'support', 'admin')`),
    check("operators_name_check", sql`${table.name} ~ '^[a-z0-9][a-z0-9._-]{0,31}$'`),
  ],
);

/** An operator's signed-in session: its cookie's token as SHA-256, idle and absolute limits (lib/operator). */
export const operatorSessions = pgTable(
  "operator_sessions",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    operatorId: integer("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    createdFrom: text("created_from").notNull(),
    /** Last request of the session: it ends after OPERATOR_SESSION_IDLE_MINUTES without one. */
    seenAt: timestamp("seen_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [index("operator_sessions_operator_idx").on(table.operatorId)],
);

/**
 * Every operator action: who, what, on what, why, from where and when. Append-only: a trigger refuses every
 * UPDATE, DELETE and TRUNCATE (migration 0021).
 */
export const operatorAudit = pgTable(
  "operator_audit",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Null for an action taken on the machine (`npm run operator:disable`), not by a signed-in operator. */
    operatorId: integer("operator_id").references(() => operators.id),
    operatorName: text("operator_name").notNull(),
    action: text("action").notNull(),
    /** What it acted on: `account:12`, `server:7`, `payment:deposit:3`, `host:nl-1`, or null (signing in). */
    target: text("target"),
    reason: text("reason"),
    /** JSON of the facts worth keeping (an amount, a period paused or not). */
    detail: text("detail"),
    client: text("client").notNull(),
  },
  (table) => [index("operator_audit_target_idx").on(table.target, table.id)],
);

/**
 * An operator's suspension of a server, or of a whole account (`server_id` null), until lifted. The reason is
 * what the customer reads; `pauses_period`: the paid period waits while it lasts (the default).
 */
export const operatorSuspensions = pgTable(
  "operator_suspensions",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    serverId: integer("server_id").references(() => servers.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    pausesPeriod: boolean("pauses_period").notNull(),
    createdBy: integer("created_by")
      .notNull()
      .references(() => operators.id),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    liftedAt: timestamp("lifted_at", { withTimezone: true, mode: "date" }),
    liftedBy: integer("lifted_by").references(() => operators.id),
  },
  (table) => [
    uniqueIndex("operator_suspensions_open_server_idx")
      .on(table.serverId)
      .where(sql`lifted_at IS NULL AND server_id IS NOT NULL`),
    uniqueIndex("operator_suspensions_open_account_idx")
      .on(table.accountId)
      .where(sql`lifted_at IS NULL AND server_id IS NULL`),
    index("operator_suspensions_account_idx").on(table.accountId, table.id),
  ],
);

/** A flagged payment an operator looked at (`deposit:<id>` or `x402:<id>`): it leaves "needs attention". */
export const paymentReviews = pgTable("payment_reviews", {
  payment: text("payment").primaryKey(),
  operatorId: integer("operator_id")
    .notNull()
    .references(() => operators.id),
  note: text("note").notNull(),
  reviewedAt: timestamp("reviewed_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/** Why a ledger row of kind `adjustment` was posted, and by whom; `reference` is the ledger row's. */
export const ledgerAdjustments = pgTable(
  "ledger_adjustments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    reference: text("reference").notNull().unique(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    reason: text("reason").notNull(),
    operatorId: integer("operator_id")
      .notNull()
      .references(() => operators.id),
    /** The flagged payment it settles, when it was posted for one: one adjustment per payment. */
    payment: text("payment"),
    /** The second admin who let it past its operator's daily cap (adjustment_approvals), if it needed one. */
    approvedBy: integer("approved_by").references(() => operators.id),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    index("ledger_adjustments_account_idx").on(table.accountId),
    index("ledger_adjustments_operator_idx").on(table.operatorId, table.createdAt),
    uniqueIndex("ledger_adjustments_payment_idx").on(table.payment).where(sql`${table.payment} IS NOT NULL`),
    check("ledger_adjustments_amount_check", sql`${table.amountCents} <> 0`),
  ],
);

/**
 * An adjustment past its operator's daily cap (OPERATOR_ADJUSTMENT_DAILY_CAP_USD): it waits here until another
 * admin approves it (then it is posted, under `reference`, as its requester's) or refuses it.
 */
export const adjustmentApprovals = pgTable(
  "adjustment_approvals",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    /** The ledger reference it is posted under once approved (its requester's idempotency key). */
    reference: text("reference").notNull().unique(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    reason: text("reason").notNull(),
    payment: text("payment"),
    requestedBy: integer("requested_by")
      .notNull()
      .references(() => operators.id),
    requestedAt: timestamp("requested_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    decidedBy: integer("decided_by").references(() => operators.id),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    decision: text("decision").$type<"approved" | "refused">(),
    decisionNote: text("decision_note"),
  },
  (table) => [
    index("adjustment_approvals_pending_idx").on(table.requestedAt).where(sql`${table.decidedAt} IS NULL`),
    check("adjustment_approvals_amount_check", sql`${table.amountCents} <> 0`),
    check(
      "adjustment_approvals_decision_check",
      sql`${table.decision} IS NULL OR ${table.decision} IN ('approved', 'refused')`,
    ),
  ],
);
