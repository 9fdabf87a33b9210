"use client";

import { lazy, Suspense, useState } from "react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/panel";
import type { Server } from "@/lib/dashboard/queries/types";

// The terminal (xterm.js) loads only when a console is opened, in the browser: no page's first load carries it.
const ConsoleTerminal = lazy(() => import("./console-terminal"));

/**
 * The machine's serial console in the page, for when SSH does not answer: the boot log and a login prompt.
 * Closed until asked for; the terminal stays open while the power buttons beside it are used.
 */
export function ConsolePanel({ server }: { server: Server }) {
  const [open, setOpen] = useState(false);
  return (
    <Panel id="console" title="Console">
      <p className="text-sm">
        The machine&apos;s serial console: its boot log and a login prompt, also when SSH does not answer (a
        firewall rule, a broken SSH server, a full disk). Log in as root with the root password (revealed
        under Overview).
      </p>
      {open ? (
        <Suspense fallback={<p role="status">Loading the console…</p>}>
          <ConsoleTerminal
            serverId={server.id}
            hostname={server.hostname}
            powerState={server.power_state}
            onClose={() => setOpen(false)}
          />
        </Suspense>
      ) : (
        <Button onClick={() => setOpen(true)}>Open console</Button>
      )}
    </Panel>
  );
}
