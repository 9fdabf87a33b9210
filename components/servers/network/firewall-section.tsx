"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { Button } from "@/components/ui/button";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import type { Server } from "@/lib/dashboard/queries/types";
import { Alert, TEXT_STYLES } from "../../ui/alert";
import { formatUtc } from "../status-badge";
import {
  asInput,
  type Firewall,
  type FirewallRule,
  type FirewallRuleInput,
  firewallQuery,
  networkKeys,
} from "./queries";
import { RuleForm } from "./rule-form";
import { SimulateBox } from "./simulate-box";

/** `tcp 22` / `udp` / `icmp` / `any`: a rule's protocol and ports in a few characters. */
const protocolText = (rule: FirewallRule) => (rule.ports ? `${rule.protocol} ${rule.ports}` : rule.protocol);
const networksText = (networks: string[]) => (networks.length > 0 ? networks.join(", ") : "any");
const hitsText = (hits: FirewallRule["hits"]) => (hits ? hits.packets.toLocaleString("en") : "—");

/**
 * The server's firewall: its rules in order (the first that matches decides), their hit counts, and what
 * happens to the rest. Every change sends the whole list; the host applies it before the answer comes back.
 */
export function FirewallSection({ server }: { server: Server }) {
  const ids = useId();
  const queryClient = useQueryClient();
  const firewall = useQuery(firewallQuery(server.id));
  const save = useMutation({
    mutationFn: (rules: FirewallRuleInput[]) =>
      bffFetch<Firewall>(`/bff/servers/${server.id}/firewall`, { method: "PUT", body: { rules } }),
    onSuccess: (saved) => queryClient.setQueryData(networkKeys.firewall(server.id), saved),
  });
  const data = firewall.data;
  const rules = data?.rules ?? [];
  const inputs = rules.map(asInput);
  const without = (index: number) => inputs.filter((_, at) => at !== index);
  const moved = (index: number, by: -1 | 1) => {
    const next = [...inputs];
    const [rule] = next.splice(index, 1);
    if (rule) next.splice(index + by, 0, rule);
    return next;
  };

  return (
    <section aria-labelledby={`${ids}-heading`} className="space-y-3">
      <h3 id={`${ids}-heading`} className="font-semibold">
        Firewall
      </h3>
      {data && !data.available ? (
        <p className={`text-sm ${TEXT_STYLES.muted}`}>
          This server&apos;s host forwards only its SSH port: there is no public network to filter.
        </p>
      ) : (
        <>
          <p className="text-sm" data-testid="firewall-state">
            {data?.state === "applied"
              ? `Applied on the host${data.applied_at ? ` at ${formatUtc(data.applied_at)}` : ""}.`
              : "Waiting for the host to apply the latest change…"}
            {data?.error && <span className={`block ${TEXT_STYLES.error}`}>{data.error}</span>}
          </p>
          <table className="w-full text-left text-sm" data-testid="firewall-rules">
            <thead>
              <tr>
                <th className="py-1">#</th>
                <th>Direction</th>
                <th>Protocol</th>
                <th>From</th>
                <th>To</th>
                <th>Action</th>
                <th>Hits</th>
                <th>
                  <span className="sr-only">Order and removal</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.map((rule, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a rule is its place in the list
                <tr key={index} className="align-top">
                  <td className="py-1 pr-2">{index + 1}</td>
                  <td className="pr-2">{rule.direction === "in" ? "inbound" : "outbound"}</td>
                  <td className="pr-2 font-mono">{protocolText(rule)}</td>
                  <td className="break-all pr-2 font-mono">{networksText(rule.sources)}</td>
                  <td className="break-all pr-2 font-mono">{networksText(rule.destinations)}</td>
                  <td className="pr-2">
                    {rule.action}
                    {rule.description && (
                      <span className={`block ${TEXT_STYLES.muted}`}>{rule.description}</span>
                    )}
                  </td>
                  <td className="pr-2">{hitsText(rule.hits)}</td>
                  <td className="flex gap-1">
                    <Button
                      aria-label={`Move rule ${index + 1} up`}
                      disabled={index === 0 || save.isPending}
                      onClick={() => save.mutate(moved(index, -1))}
                    >
                      ↑
                    </Button>
                    <Button
                      aria-label={`Move rule ${index + 1} down`}
                      disabled={index === rules.length - 1 || save.isPending}
                      onClick={() => save.mutate(moved(index, 1))}
                    >
                      ↓
                    </Button>
                    <Button
                      aria-label={`Remove rule ${index + 1}`}
                      disabled={save.isPending}
                      onClick={() => save.mutate(without(index))}
                    >
                      Remove
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {data && (
            <ul className={`text-sm ${TEXT_STYLES.muted}`} data-testid="firewall-defaults">
              <li>
                Inbound with no matching rule: {data.default_inbound === "drop" ? "dropped" : "accepted"}
                {data.default_inbound_hits && ` (${hitsText(data.default_inbound_hits)} dropped)`}
              </li>
              <li>Outbound with no matching rule: accepted</li>
              <li>
                Outbound mail (port 25): {data.smtp === "open" ? "open" : "blocked (ask support to open it)"}
              </li>
              <li>
                Answers to accepted connections always pass; changes never cut an established connection.
              </li>
            </ul>
          )}
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => void firewall.refetch()} disabled={firewall.isFetching}>
              {firewall.isFetching ? "Reading counts…" : "Refresh counts"}
            </Button>
          </div>
          <RuleForm
            firstRule={rules.length === 0}
            pending={save.isPending}
            onAdd={(rule) => save.mutate([...inputs, rule])}
          />
          <SimulateBox serverId={server.id} />
        </>
      )}
      {(save.error || firewall.error) && (
        <Alert className="text-sm" data-testid="firewall-error">
          {errorMessage(save.error ?? firewall.error)}
        </Alert>
      )}
    </section>
  );
}
