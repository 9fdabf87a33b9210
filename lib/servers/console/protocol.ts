/**
 * The console's WebSocket protocol, shared by the gateway and the dashboard's terminal. Binary frames carry
 * the serial line's bytes, both ways, untouched; text frames carry JSON control messages.
 */

/** The subprotocol both sides speak; the client offers it beside `ticket.<ticket>`. */
export const CONSOLE_PROTOCOL = "vps-console.v1";

/** The ticket travels as a second offered subprotocol, so it never appears in a URL (nor in access logs). */
export const TICKET_PROTOCOL_PREFIX = "ticket.";

/** `/api/v1/servers/{id}/console/socket`: where the WebSocket upgrade is taken. */
export const CONSOLE_SOCKET_PATH = /^\/api\/v1\/servers\/([1-9]\d{0,9})\/console\/socket$/;

export const consoleSocketPath = (serverId: number) => `/api/v1/servers/${serverId}/console/socket`;

/** The server id of an upgrade request's path (query string ignored), or undefined when it is not the console's. */
export function consoleSocketServerId(url: string | undefined): number | undefined {
  const match = CONSOLE_SOCKET_PATH.exec((url ?? "").split("?")[0] ?? "");
  const id = match ? Number(match[1]) : Number.NaN;
  return Number.isSafeInteger(id) && id <= 2_147_483_647 ? id : undefined;
}

/**
 * Why a session ended, with the WebSocket close code it ends with. 1001 and the 1006 a browser sees when
 * the connection drops are worth a reconnect with a fresh ticket; the others are final.
 */
export const CLOSE_REASONS = {
  /** The client closed the console (a `close` message, or the WebSocket's own close). */
  ended: { code: 1000, message: "The console session ended." },
  /** The app instance is stopping; a fresh ticket reaches another one. */
  restarting: { code: 1001, message: "The service is restarting; reconnect with a fresh ticket." },
  idle: { code: 4000, message: "The console was closed after a time without input." },
  max_duration: { code: 4001, message: "The console reached its longest allowed session." },
  machine_stopped: { code: 4002, message: "The machine is stopped: start it to use its console." },
  replaced: { code: 4003, message: "This server's console was opened in another window." },
  server_not_active: { code: 4004, message: "The server is not active (being built, suspended or gone)." },
  host_error: { code: 4005, message: "The host did not give access to the machine's console; try again." },
  connection_lost: { code: 4006, message: "The client stopped answering." },
  bad_message: { code: 4007, message: "A control message was not understood." },
  input_overflow: { code: 4008, message: "More input came than the console takes; the session was closed." },
  client_behind: { code: 4009, message: "The client did not keep up with the console's output." },
  revoked: { code: 4010, message: "The key or dashboard session that opened this console was revoked." },
  closed_by_owner: { code: 4011, message: "The server's consoles were closed by its owner." },
  closed_by_operator: { code: 4012, message: "An operator closed this console." },
} as const;

export type CloseReason = keyof typeof CLOSE_REASONS;

export const closeReasonOf = (code: number): CloseReason | undefined =>
  (Object.keys(CLOSE_REASONS) as CloseReason[]).find((reason) => CLOSE_REASONS[reason].code === code);

/** Close codes after which a client reconnects with a fresh ticket: the instance went away, not the console. */
export const RECONNECT_CODES = new Set([1001, 1006, 1011, 1012, 1013]);

/** Text frames from the gateway. */
export type ServerMessage =
  | {
      type: "ready";
      session_id: number;
      server_id: number;
      /** The simulated provisioner's console: a demo shell, no machine behind it. */
      demo: boolean;
      idle_timeout_seconds: number;
      closes_at: string;
    }
  | { type: "closed"; reason: CloseReason; message: string };

/** Text frames from the client. */
export type ClientMessage = { type: "resize"; cols: number; rows: number } | { type: "close" };

export const MAX_TERMINAL_COLS = 500;
export const MAX_TERMINAL_ROWS = 200;
/** The largest frame the gateway accepts; a client splits a longer paste. */
export const MAX_FRAME_BYTES = 16 * 1024;

/** A text frame from the client as a control message, or undefined when it is none the protocol knows. */
export function parseClientMessage(text: string): ClientMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const message = value as Record<string, unknown>;
  if (message.type === "close" && Object.keys(message).length === 1) return { type: "close" };
  if (message.type !== "resize" || Object.keys(message).length !== 3) return undefined;
  const { cols, rows } = message;
  const within = (n: unknown, max: number): n is number =>
    Number.isInteger(n) && (n as number) >= 1 && (n as number) <= max;
  return within(cols, MAX_TERMINAL_COLS) && within(rows, MAX_TERMINAL_ROWS)
    ? { type: "resize", cols, rows }
    : undefined;
}
