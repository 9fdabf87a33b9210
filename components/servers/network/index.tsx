"use client";

import { Panel } from "@/components/ui/panel";
import type { Server } from "@/lib/dashboard/queries/types";
import { FirewallSection } from "./firewall-section";
import { ReverseDnsSection } from "./reverse-dns-section";

/**
 * A server's network: its addresses, the reverse DNS of each (with its state in DNS), and the firewall its
 * host applies in front of it (rules, their hit counts, a form to add one, and a box that asks whether a
 * packet would pass). Loaded after the page has hydrated, like the other panels below the power buttons.
 */
export default function NetworkPanel({ server }: { server: Server }) {
  if (server.status === "terminated") return null;
  return (
    <Panel id="network" title="Network">
      <dl className="grid grid-cols-[10rem_1fr] gap-y-2 text-sm" data-testid="network-addresses">
        <dt>IPv4</dt>
        <dd className="break-all font-mono">{server.ip ?? "—"}</dd>
        <dt>IPv6</dt>
        <dd className="break-all font-mono">{server.ipv6 ?? "—"}</dd>
        <dt>IPv6 network</dt>
        <dd className="break-all font-mono">{server.ipv6_prefix ?? "none on this host"}</dd>
      </dl>
      <ReverseDnsSection server={server} />
      <FirewallSection server={server} />
    </Panel>
  );
}
