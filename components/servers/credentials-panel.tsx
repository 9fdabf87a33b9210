"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Panel } from "@/components/ui/panel";
import { errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import { fetchCredentials } from "@/lib/dashboard/queries/servers";
import { sshCommand } from "@/lib/servers/ssh-command";

/**
 * Root credentials, masked until the user asks. The password is read from the API only on reveal, held in
 * this component's state alone (never the query cache), and dropped again on hide or when the page goes.
 */
export function CredentialsPanel({
  serverId,
  ip,
  sshPort,
}: {
  serverId: number;
  ip: string | null;
  sshPort?: number | null;
}) {
  const [password, setPassword] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState("");

  async function reveal() {
    setLoading(true);
    setError("");
    try {
      setPassword((await fetchCredentials(serverId)).password);
    } catch (failure) {
      setError(errorMessage(failure));
    }
    setLoading(false);
  }

  return (
    <Panel id="credentials" title="Root login">
      {ip && (
        <div className="space-y-1 text-sm">
          <p>Log in over SSH:</p>
          <p className="flex flex-wrap items-center gap-2">
            <code data-testid="ssh-command" className="rounded bg-zinc-100 px-2 py-1 dark:bg-zinc-900">
              {sshCommand(ip, sshPort)}
            </code>
            <CopyButton value={sshCommand(ip, sshPort)} label="Copy SSH command" />
          </p>
        </div>
      )}
      <dl className="grid grid-cols-[8rem_1fr] gap-y-2 text-sm">
        <dt>User</dt>
        <dd className="font-mono">root</dd>
        <dt>Password</dt>
        <dd className="break-all font-mono" data-testid="root-password">
          {password ?? "••••••••••••"}
        </dd>
      </dl>
      <div className="flex flex-wrap gap-2">
        {password ? (
          <>
            <CopyButton value={password} label="Copy password" />
            <Button onClick={() => setPassword(undefined)}>Hide password</Button>
          </>
        ) : (
          <Button onClick={reveal} disabled={loading}>
            {loading ? "Revealing…" : "Reveal password"}
          </Button>
        )}
      </div>
      {error && <Alert className="text-sm">{error}</Alert>}
    </Panel>
  );
}
