"use client";

import dynamic from "next/dynamic";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/panel";
import type { Server } from "@/lib/dashboard/queries/types";

// The terminal (xterm.js) loads only when a console is opened: no page's first load carries it.
const ConsoleTerminal = dynamic(() => import("./console-terminal"), {
  ssr: false,
  loading: () => <p role="status">Loading the console…</p>,
});

/**
 * The machine's serial console in the page, for when SSH does not answer: the boot log and a login prompt.
 * Closed until asked for; the terminal stays open while the rest of the page (power, reinstall) is used.
 */
export function ConsolePanel({ server }: { server: Server }) {
  const [open, setOpen] = useState(false);
  return (
    <Panel id="console" title="Console">
      <p className="text-sm">
        The machine&apos;s serial console: its boot log and a login prompt, also when SSH does not answer (a
        firewall rule, a broken SSH server, a full disk). Log in as root with the password above.
      </p>
      {open ? (
        <ConsoleTerminal
          serverId={server.id}
          hostname={server.hostname}
          powerState={server.power_state}
          onClose={() => setOpen(false)}
        />
      ) : (
        <Button onClick={() => setOpen(true)}>Open console</Button>
      )}
    </Panel>
  );
}
