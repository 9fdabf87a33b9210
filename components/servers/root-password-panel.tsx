"use client";

import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { bffFetch, errorMessage } from "@/lib/dashboard/queries/bff-fetch";
import type { Server } from "@/lib/dashboard/queries/types";

/**
 * A new generated root password, set inside the running machine by its guest agent. The answer is the new
 * login, shown here like a reveal: held in this component's state only, dropped on hide.
 */
export function RootPasswordPanel({ server }: { server: Server }) {
  const ids = useId();
  const [password, setPassword] = useState<string>();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState("");

  async function change() {
    setPending(true);
    setError("");
    setPassword(undefined);
    try {
      const login = await bffFetch<{ username: "root"; password: string }>(
        `/bff/servers/${server.id}/password`,
        { method: "POST", body: {} },
      );
      setPassword(login.password);
    } catch (failure) {
      setError(errorMessage(failure));
    }
    setPending(false);
  }

  const running = server.status === "active" && server.power_state === "running";
  return (
    <section aria-labelledby={`${ids}-heading`} className="space-y-3">
      <h2 id={`${ids}-heading`} className="text-lg font-semibold">
        New root password
      </h2>
      <p className="text-sm">
        Sets a new generated password for root inside the running server (through its guest agent), without a
        reinstall. The old password stops working.
      </p>
      {password ? (
        <div className="space-y-2">
          <p role="status" className="text-sm">
            The new root password is set:
          </p>
          <p className="break-all font-mono text-sm" data-testid="new-root-password">
            {password}
          </p>
          <div className="flex flex-wrap gap-2">
            <CopyButton value={password} label="Copy new password" />
            <Button onClick={() => setPassword(undefined)}>Hide new password</Button>
          </div>
        </div>
      ) : (
        <Button onClick={change} disabled={pending || !running}>
          {pending ? "Setting password…" : "Set a new root password"}
        </Button>
      )}
      {!running && !password && (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">The server must be running.</p>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </section>
  );
}
