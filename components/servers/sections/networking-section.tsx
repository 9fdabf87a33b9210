"use client";

import { lazy } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { Panel } from "@/components/ui/panel";
import { sshCommand } from "@/lib/servers/ssh-command";
import { TEXT_STYLES } from "../../ui/alert";
import { AfterHydration } from "./after-hydration";
import { SectionUnavailable } from "./section-unavailable";
import { useServer } from "./use-server";

/** Reverse DNS and the firewall: their code loads once the page has hydrated. */
const NetworkPanel = lazy(() => import("../network"));

/** The server's addresses and how to reach it: its public IPv4, the SSH command and the pinned host key. */
export function NetworkingSection({ id }: { id: number }) {
  const server = useServer(id);
  if (!server.ip) {
    return (
      <SectionUnavailable>
        {server.status === "terminated"
          ? "This server is terminated: its address was released."
          : "The address is assigned when the server is built."}
      </SectionUnavailable>
    );
  }
  const command = sshCommand(server.ip, server.ssh_port);
  return (
    <>
      <Panel id="addresses" title="Addresses">
        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
          <dt className={TEXT_STYLES.muted}>IPv4</dt>
          <dd className="flex flex-wrap items-center gap-2">
            <code data-testid="network-ipv4">{server.ip}</code>
            <CopyButton value={server.ip} label="Copy IPv4 address" />
          </dd>
          <dt className={TEXT_STYLES.muted}>SSH port</dt>
          <dd className="font-mono" data-testid="network-ssh-port">
            {server.ssh_port ?? 22}
          </dd>
          <dt className={TEXT_STYLES.muted}>SSH</dt>
          <dd className="flex flex-wrap items-center gap-2">
            <code data-testid="network-ssh-command" className="break-all">
              {command}
            </code>
            <CopyButton value={command} label="Copy SSH command" />
          </dd>
          <dt className={TEXT_STYLES.muted}>Host key</dt>
          <dd className="font-mono break-all">{server.ssh_host_key_fingerprint ?? "—"}</dd>
        </dl>
        {server.ssh_port !== null && server.ssh_port !== 22 && (
          <p className={`text-sm ${TEXT_STYLES.muted}`}>
            This host forwards one port of its own address to the server&apos;s SSH; nothing else reaches it.
          </p>
        )}
      </Panel>
      <AfterHydration>
        <NetworkPanel server={server} />
      </AfterHydration>
    </>
  );
}
