import type { Firewall, Ptr } from "@/lib/api/schemas/network";
import type { FirewallView, SimulationResult } from "./firewall";
import type { PtrList, PtrView } from "./rdns";

/** The network's answers as the API shows them. */

export function presentFirewall(view: FirewallView): Firewall {
  return {
    available: view.available,
    rules: view.rules,
    default_inbound: view.defaultInbound,
    default_inbound_hits: view.defaultInboundHits,
    default_outbound: "accept",
    smtp: view.smtp,
    smtp_hits: view.smtpHits,
    revision: view.revision,
    applied_revision: view.appliedRevision,
    state: view.state,
    applied_at: view.appliedAt?.toISOString() ?? null,
    error: view.error,
    counters_read_at: view.countersReadAt?.toISOString() ?? null,
  };
}

export function presentSimulation(result: SimulationResult) {
  return {
    verdict: result.verdict,
    decided_by: result.by,
    rule_index: result.by === "rule" ? result.index : null,
    rule: result.rule,
    remote_address: result.remote,
    local_address: result.local,
  };
}

export const presentPtr = (view: PtrView): Ptr => ({
  address: view.address,
  name: view.name,
  default: view.default,
  state: view.state,
  reason: view.reason,
  updated_at: view.updatedAt?.toISOString() ?? null,
});

export const presentPtrList = (list: PtrList) => ({
  managed: list.managed,
  records: list.records.map(presentPtr),
});
