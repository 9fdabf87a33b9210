import { badRequest, conflict } from "@/lib/api/errors";
import type { ReinstallServerRequest } from "@/lib/api/schemas/server-machine";
import { findOs } from "@/lib/catalog/catalog";

type Row = { hostname: string; status: string; os: string };

/**
 * Checks a reinstall request against the server and returns the OS to install, or throws the 4xx that says
 * why not: a confirmation that is not the hostname (400), a server that is not active (409), an OS without
 * an image here (409).
 */
export function checkReinstall(
  row: Row,
  request: Pick<ReinstallServerRequest, "confirm" | "os">,
  imageAvailable: (os: string) => boolean,
): string {
  if (request.confirm.trim().toLowerCase() !== row.hostname.toLowerCase()) {
    throw badRequest(
      "confirmation_mismatch",
      "Send confirm as the server's hostname: reinstalling wipes its disk.",
    );
  }
  if (row.status !== "active") {
    throw conflict(
      "server_not_active",
      `Only an active server can be reinstalled; this one is ${row.status}.`,
    );
  }
  const os = request.os ?? row.os;
  if (!findOs(os) || !imageAvailable(os)) {
    throw conflict("os_unavailable", `${os} cannot be installed here right now; choose another OS.`);
  }
  return os;
}
