"use client";

import { ActionNotice } from "../action-notice";
import { CredentialsPanel } from "../credentials-panel";
import { PowerPanel } from "../power-panel";
import { RenewalPanel } from "../renewal-panel";
import { RootPasswordPanel } from "../root-password-panel";
import { ServerFacts } from "../server-facts";
import { useServerChange } from "../use-server-change";
import { lifeOf, useServer } from "./use-server";

/** A server at a glance, with what is used most: its facts, root login, renewal, power and a new root password. */
export function OverviewSection({ id }: { id: number }) {
  const server = useServer(id);
  const actions = useServerChange(id);
  const { live, retained } = lifeOf(server);
  return (
    <>
      <ServerFacts server={server} />
      <ActionNotice actions={actions} />
      {live && (
        // A reinstall gives a new password and host key: a login revealed before it is hidden again.
        <CredentialsPanel
          key={`${server.status}:${server.ssh_host_key_fingerprint}`}
          serverId={server.id}
          ip={server.ip}
          sshPort={server.ssh_port}
        />
      )}
      {(live || retained) && <RenewalPanel server={server} actions={actions} />}
      {server.status === "active" && <PowerPanel server={server} actions={actions} />}
      {(server.status === "active" || server.status === "provisioning") && (
        <RootPasswordPanel server={server} />
      )}
    </>
  );
}
