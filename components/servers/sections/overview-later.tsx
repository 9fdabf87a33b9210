"use client";

import type { Server } from "@/lib/dashboard/queries/types";
import { CredentialsPanel } from "../credentials-panel";
import { RenewalPanel } from "../renewal-panel";
import { RootPasswordPanel } from "../root-password-panel";
import type { ServerActions } from "../use-server-change";
import { lifeOf } from "./use-server";

/** The overview's panels below the power buttons (root login, renewal, a new root password), loaded after it. */
export default function OverviewLater({ server, actions }: { server: Server; actions: ServerActions }) {
  const { live, retained } = lifeOf(server);
  return (
    <>
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
      {(server.status === "active" || server.status === "provisioning") && (
        <RootPasswordPanel server={server} />
      )}
    </>
  );
}
