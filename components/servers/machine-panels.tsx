"use client";

import type { Server } from "@/lib/dashboard/queries/types";
import { ReinstallPanel } from "./reinstall-panel";
import { RootPasswordPanel } from "./root-password-panel";

/** What changes the machine itself: a new root password, or a reinstall. */
export function MachinePanels({ server }: { server: Server }) {
  if (server.status === "terminated" || server.status === "suspended") return null;
  return (
    <>
      <RootPasswordPanel server={server} />
      <ReinstallPanel server={server} />
    </>
  );
}
