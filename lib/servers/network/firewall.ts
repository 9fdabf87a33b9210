import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { badRequest, conflict } from "@/lib/api/errors";
import { type Database, db, type Tx } from "@/lib/db/client";
import { serverFirewalls, serverJobs } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { enqueueJob, finish, type Job, runJobNow } from "../jobs";
import type { FirewallState } from "../libvirt/host-firewall";
import type { ServerRow } from "../present";
import { provisioner } from "../provisioner";
import { type ServerReader, serverPart } from "../reads";
import { lockServer, serverRow } from "../rows";
import { canonicalAddress, familyOf, parseNetwork, serverIpv6Address } from "./addresses";
import { COUNTER_COMMENTS, type Counter } from "./compile";
import { defaultInbound, type FirewallRule, normaliseRules, type RuleInput, ruleKeys } from "./rules";
import { type Decision, type Packet, simulate } from "./simulate";

/**
 * A server's firewall, as its owner sets it and its host applies it: the rules are stored with a revision,
 * and a `firewall` job (one at a time per server, like every host change) compiles them into the server's
 * table on its host. The change's request waits for that up to APPLY_WAIT_MS and answers with the outcome.
 * The same table is applied before every start of the machine (jobs.ts), and again by reconciliation when a
 * host lost it (a restart).
 */

/** How long a change's request waits for its host to apply it before answering `pending`. */
const APPLY_WAIT_MS = 5_000;

type FirewallRow = typeof serverFirewalls.$inferSelect;

/** The stored firewall of a server; none stored: no rules, SMTP blocked, nothing applied yet. */
async function firewallRow(handle: Database | Tx, serverId: number): Promise<FirewallRow | undefined> {
  const [row] = await handle.select().from(serverFirewalls).where(eq(serverFirewalls.serverId, serverId));
  return row;
}

const stateOf = (row: FirewallRow | undefined): FirewallState => ({
  rules: row?.rules ?? [],
  smtpOpen: row?.smtpOpen ?? false,
  revision: row?.revision ?? 0,
});

/**
 * Applies the server's current firewall on its host, then records the revision applied: before a machine
 * starts (a failure stops the start, so no machine runs unfiltered) and in `firewall` jobs. A host without a
 * public network has nothing to apply.
 */
export async function applyServerNetwork(server: ServerRow): Promise<void> {
  const database = await db();
  const state = stateOf(await firewallRow(database, server.id));
  const applied = await provisioner().applyNetwork(server, state);
  if (!applied && !provisioner().simulated) return;
  await database
    .insert(serverFirewalls)
    .values({ serverId: server.id, appliedRevision: state.revision, appliedAt: now(), applyError: null })
    .onConflictDoUpdate({
      target: serverFirewalls.serverId,
      set: {
        appliedRevision: sql`greatest(coalesce(${serverFirewalls.appliedRevision}, 0), ${state.revision})`,
        appliedAt: now(),
        applyError: null,
      },
    });
}

/** Whether the server has a machine on its host whose firewall a change must reach now. */
const hasMachine = (row: ServerRow) =>
  (row.status === "active" || row.status === "suspended") && row.powerState !== null;

/** The `firewall` job: the server's table brought up to date on its host (terminated: its destroy removes it). */
export async function runFirewallJob(job: Job): Promise<void> {
  const server = await serverRow(job.serverId);
  const database = await db();
  if (hasMachine(server)) {
    try {
      await applyServerNetwork(server);
    } catch (error) {
      await database
        .update(serverFirewalls)
        .set({ applyError: firstLine(error).slice(0, 300) })
        .where(eq(serverFirewalls.serverId, server.id));
      throw error;
    }
  }
  await database.transaction((tx) => finish(tx, job, "done"));
}

/**
 * Queues the server's firewall for its host (in the caller's transaction), unless a job not yet started will
 * already read the newest rules; returns that job's id.
 */
export async function queueFirewallApply(tx: Tx, serverId: number): Promise<number> {
  const [waiting] = await tx
    .select({ id: serverJobs.id })
    .from(serverJobs)
    .where(
      and(
        eq(serverJobs.serverId, serverId),
        eq(serverJobs.kind, "firewall"),
        eq(serverJobs.state, "pending"),
      ),
    )
    .limit(1);
  return waiting?.id ?? enqueueJob(tx, serverId, "firewall");
}

export type Hits = Counter | null;

export type FirewallView = {
  available: boolean;
  rules: (FirewallRule & { hits: Hits })[];
  defaultInbound: "accept" | "drop";
  defaultInboundHits: Hits;
  smtp: "blocked" | "open";
  smtpHits: Hits;
  revision: number;
  appliedRevision: number | null;
  appliedAt: Date | null;
  state: "applied" | "pending";
  error: string | null;
  countersReadAt: Date | null;
};

function present(
  server: ServerRow,
  row: FirewallRow | undefined,
  counters: Map<string, Counter> | undefined,
): FirewallView {
  const state = stateOf(row);
  const keys = ruleKeys(state.rules);
  const hits = (comment: string): Hits =>
    counters ? (counters.get(comment) ?? { packets: 0, bytes: 0 }) : null;
  const appliedRevision = row?.appliedRevision ?? null;
  return {
    available: provisioner().firewallAvailable(server),
    rules: state.rules.map((rule, index) => ({
      ...rule,
      hits: hits(COUNTER_COMMENTS.rule(keys[index] ?? "")),
    })),
    defaultInbound: defaultInbound(state.rules),
    defaultInboundHits: state.rules.length > 0 ? hits(COUNTER_COMMENTS.defaultInbound) : null,
    smtp: state.smtpOpen ? "open" : "blocked",
    smtpHits: state.smtpOpen ? null : hits(COUNTER_COMMENTS.smtp),
    revision: state.revision,
    appliedRevision,
    appliedAt: row?.appliedAt ?? null,
    state: appliedRevision !== null && appliedRevision >= state.revision ? "applied" : "pending",
    error: appliedRevision !== null && appliedRevision >= state.revision ? null : (row?.applyError ?? null),
    countersReadAt: counters ? now() : null,
  };
}

/** The counts of the server's table on its host, or undefined when they cannot be read now. */
async function countersOf(server: ServerRow): Promise<Map<string, Counter> | undefined> {
  if (!hasMachine(server)) return undefined;
  try {
    return await provisioner().firewallCounters(server);
  } catch (error) {
    console.error(`server ${server.id}: firewall counters: ${firstLine(error)}`);
    return undefined;
  }
}

/** The rules as stored (reused until the table is written) and the host's live counts. */
export async function getFirewall(reader: ServerReader, serverId: number): Promise<FirewallView> {
  const { row: server, part: row } = await serverPart(
    reader,
    serverId,
    "firewall",
    ["server_firewalls"],
    async () => firewallRow(await db(), serverId),
  );
  return present(server, row, await countersOf(server));
}

const refuseUnavailable = (row: ServerRow) => {
  if (row.status === "terminated") throw conflict("server_terminated", "This server is terminated.");
  if (!provisioner().firewallAvailable(row)) {
    throw conflict(
      "firewall_unavailable",
      "This server's host forwards only its SSH port (it has no public network): there is nothing to filter.",
    );
  }
};

/**
 * Replaces the server's rules (the whole ordered list) and has its host apply them: the answer says whether
 * the host has (`state: applied`) or will shortly (`pending`, a job retrying, with the host's words in `error`).
 */
export async function setFirewallRules(
  accountId: number,
  serverId: number,
  inputs: RuleInput[],
): Promise<FirewallView> {
  const rules = normaliseRules(inputs);
  if (typeof rules === "string") throw badRequest("invalid_firewall_rules", `Firewall rules: ${rules}.`);
  const database = await db();
  const jobId = await database.transaction(async (tx) => {
    const row = await lockServer(tx, serverId, { ownedBy: accountId });
    refuseUnavailable(row);
    const simulated = provisioner().simulated;
    const [saved] = await tx
      .insert(serverFirewalls)
      .values({
        serverId,
        rules,
        revision: 1,
        updatedAt: now(),
        ...(simulated ? { appliedRevision: 1, appliedAt: now() } : {}),
      })
      .onConflictDoUpdate({
        target: serverFirewalls.serverId,
        set: {
          rules,
          revision: sql`${serverFirewalls.revision} + 1`,
          updatedAt: now(),
          // Nothing stands behind a simulated server: what is stored is all there is to apply.
          ...(simulated ? { appliedRevision: sql`${serverFirewalls.revision} + 1`, appliedAt: now() } : {}),
        },
      })
      .returning();
    if (!saved) throw new Error("firewall upsert returned no row");
    return simulated || !hasMachine(row) ? undefined : queueFirewallApply(tx, serverId);
  });
  if (jobId !== undefined) await runJobNow(jobId, APPLY_WAIT_MS);
  const server = await serverRow(serverId, { ownedBy: accountId });
  return present(server, await firewallRow(database, serverId), undefined);
}

export type SimulationRequest = {
  direction: Packet["direction"];
  protocol: Packet["protocol"];
  port?: number | null;
  remote_address: string;
  local_address?: string | null;
};

export type SimulationResult = Decision & { rule: FirewallRule | null; local: string; remote: string };

/** The server's own address of the remote one's family: its IPv4, or `::1` of its /64. */
function localAddressOf(row: ServerRow, family: 4 | 6): string | undefined {
  if (family === 4) return row.ip && familyOf(row.ip) === 4 ? row.ip : undefined;
  return row.ipv6Prefix ? serverIpv6Address(row.ipv6Prefix) : undefined;
}

/** Whether the address is one of the server's own (its IPv4, or inside its /64). */
function isOwnAddress(row: ServerRow, address: string): boolean {
  if (familyOf(address) === 4) return row.ip === address;
  const prefix = row.ipv6Prefix ? parseNetwork(row.ipv6Prefix) : undefined;
  return prefix !== undefined && parseNetwork(`${address}/64`)?.address === prefix.address;
}

/** What the server's firewall would do with the first packet of a new connection, and which rule decides. */
export async function simulateFirewall(
  accountId: number,
  serverId: number,
  request: SimulationRequest,
): Promise<SimulationResult> {
  const server = await serverRow(serverId, { ownedBy: accountId });
  const remote = canonicalAddress(request.remote_address);
  if (!remote) throw badRequest("invalid_simulation", "remote_address must be an IPv4 or IPv6 address.");
  const port = request.port ?? null;
  if ((request.protocol === "tcp" || request.protocol === "udp") !== (port !== null)) {
    throw badRequest("invalid_simulation", "Give port for tcp and udp, and none for icmp.");
  }
  const family = familyOf(remote);
  let local: string | undefined;
  if (request.local_address) {
    local = canonicalAddress(request.local_address);
    if (!local || familyOf(local) !== family || !isOwnAddress(server, local)) {
      throw badRequest(
        "invalid_simulation",
        "local_address must be one of this server's addresses, of the same family as remote_address.",
      );
    }
  } else {
    local = localAddressOf(server, family);
  }
  if (!local) {
    throw badRequest(
      "invalid_simulation",
      `This server has no IPv${family} address to simulate a packet for.`,
    );
  }
  const state = stateOf(await firewallRow(await db(), serverId));
  const decision = simulate(state.rules, state.smtpOpen, {
    direction: request.direction,
    protocol: request.protocol,
    port,
    remote,
    local,
  });
  return {
    ...decision,
    rule: decision.by === "rule" ? (state.rules[decision.index] ?? null) : null,
    local,
    remote,
  };
}

/** The operator's SMTP decision for a server, in the caller's transaction; returns the job that applies it. */
export async function setSmtpOpen(tx: Tx, row: ServerRow, open: boolean): Promise<number | undefined> {
  await tx
    .insert(serverFirewalls)
    .values({ serverId: row.id, smtpOpen: open, revision: 1, updatedAt: now() })
    .onConflictDoUpdate({
      target: serverFirewalls.serverId,
      set: { smtpOpen: open, revision: sql`${serverFirewalls.revision} + 1`, updatedAt: now() },
    });
  if (provisioner().simulated) {
    await tx
      .update(serverFirewalls)
      .set({ appliedRevision: serverFirewalls.revision, appliedAt: now() })
      .where(eq(serverFirewalls.serverId, row.id));
    return undefined;
  }
  return hasMachine(row) ? queueFirewallApply(tx, row.id) : undefined;
}

/** The SMTP policy of a server as the operator's console shows it. */
export async function smtpPolicyOf(serverId: number): Promise<"open" | "blocked"> {
  return (await firewallRow(await db(), serverId))?.smtpOpen ? "open" : "blocked";
}

export { APPLY_WAIT_MS };
