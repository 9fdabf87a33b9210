/** The console: its ticket operation and the WebSocket endpoint the ticket opens, with the protocol spoken there. */
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { ConsolesClosedSchema, ConsoleTicketSchema } from "@/lib/api/schemas/console";
import { CLOSE_REASONS, CONSOLE_PROTOCOL, MAX_FRAME_BYTES } from "@/lib/servers/console/protocol";
import { CONSOLE_SESSION_RETENTION_DAYS } from "@/lib/servers/console/tickets";
import { serverIdParam, serverNotFound } from "./servers";
import {
  authed,
  DEFAULTS,
  errorResponse,
  jsonContent,
  perWindow,
  publicOperation,
  responses,
  retryAfter,
} from "./shared";

const closeCodes = Object.entries(CLOSE_REASONS)
  .map(([reason, { code }]) => `\`${code}\` ${reason}`)
  .join(", ");

export const consoleTag = {
  name: "Console",
  description:
    "The server's serial console (its `ttyS0`: the boot log and a login prompt), live over a WebSocket, for when " +
    "SSH does not answer. Two steps: `POST /servers/{id}/console` returns a ticket, then a WebSocket to " +
    "`websocket_url` offering two subprotocols, `" +
    CONSOLE_PROTOCOL +
    "` and `ticket.<ticket>` (the ticket never goes in a URL, so no access log holds it). The ticket is single " +
    `use, bound to the account and the server, and expires after ${DEFAULTS.CONSOLE_TICKET_TTL_SECONDS} s ` +
    "(`CONSOLE_TICKET_TTL_SECONDS`). A browser's `Origin` must be this service's own; a client that sends no " +
    "`Origin` (not a browser) is not checked. Every refusal is a plain HTTP answer before anything reaches the " +
    "host.\n\n" +
    "**Frames.** Binary frames carry the serial line's bytes unchanged: from the server, what the machine " +
    "prints; from the client, keystrokes and pastes (at most " +
    MAX_FRAME_BYTES / 1024 +
    " KiB a frame: split longer pastes). Text frames carry JSON. The server sends " +
    '`{"type": "ready", "session_id", "server_id", "demo", "idle_timeout_seconds", "closes_at"}` once the console ' +
    'is attached, and `{"type": "closed", "reason", "message"}` just before it closes. The client may send ' +
    '`{"type": "resize", "cols", "rows"}` (1-500 by 1-200) and `{"type": "close"}`. A serial line carries no ' +
    "window size, so on a real machine resize changes nothing: run `stty rows R cols C` in the guest for full-screen " +
    "programs. Any other text frame closes the session (`bad_message`).\n\n" +
    "**Closing.** The close code says why: " +
    closeCodes +
    ". A session closes after `CONSOLE_IDLE_TIMEOUT_SECONDS` (default " +
    DEFAULTS.CONSOLE_IDLE_TIMEOUT_SECONDS +
    " s) without client frames and `CONSOLE_MAX_SECONDS` (default " +
    DEFAULTS.CONSOLE_MAX_SECONDS +
    " s) after it opened. After `1001` (the instance is stopping) or a dropped connection, reconnect with a " +
    "fresh ticket. A server has one console at a time: a new one closes the older one (`replaced`). " +
    "The server pings every 25 s; a client that does not answer two pings is dropped. " +
    "A console closes when the key or dashboard session that requested its ticket is revoked (`revoked`: at once " +
    "on the instance that revoked it, within 10 s on others), when its owner closes the server's consoles " +
    "(`DELETE /servers/{id}/console`, `closed_by_owner`) and when an operator closes it (`closed_by_operator`).\n\n" +
    "**Flow control.** Input is taken at `CONSOLE_INPUT_BYTES_PER_SECOND` (default " +
    DEFAULTS.CONSOLE_INPUT_BYTES_PER_SECOND +
    ") after a first 64 KiB: faster input is not read from the socket until its turn (it waits on the client's " +
    "side); a client that keeps sending while it is not read is closed (`input_overflow`). Output a client does " +
    "not read pauses the console; a client more than 1 MiB behind for `CONSOLE_BEHIND_SECONDS` (default " +
    DEFAULTS.CONSOLE_BEHIND_SECONDS +
    " s), or 4 MiB behind at all, is cut off (`client_behind`; the connection drops without a close frame).\n\n" +
    "Each session is recorded for the operator (account, server, times, client addresses, the key's id), never " +
    `what was typed, and deleted ${CONSOLE_SESSION_RETENTION_DAYS} days after it closed. \`console.opened\` is ` +
    `announced for the first console of a server in each window of \`CONSOLE_OPENED_EVENT_MINUTES\` (default ` +
    `${DEFAULTS.CONSOLE_OPENED_EVENT_MINUTES}).`,
};

const ticketsLimited = errorResponse(
  "`too_many_consoles`: the consoles of as many other servers as allowed are open or ticketed; close one " +
    `first. \`rate_limited\`: more tickets than ${perWindow(DEFAULTS.RATE_LIMIT_CONSOLE_TICKETS)} for the ` +
    `account (\`RATE_LIMIT_CONSOLE_TICKETS\`) or ${perWindow(DEFAULTS.RATE_LIMIT_CONSOLE_TICKETS_SERVER)} for ` +
    "the server (`RATE_LIMIT_CONSOLE_TICKETS_SERVER`), or this client address sent too many bad API keys.",
  ["too_many_consoles", "rate_limited"],
  retryAfter,
);

export const consolePaths: ZodOpenApiPathsObject = {
  "/servers/{id}/console": {
    post: authed("servers:console", {
      tags: ["Console"],
      operationId: "openServerConsole",
      summary: "A ticket for the server's console",
      description:
        "Returns a single-use ticket and the WebSocket URL to present it at (see the Console section for the " +
        "protocol). The server must be active and running. An account may hold the consoles of " +
        `\`CONSOLE_MAX_PER_ACCOUNT\` (default ${DEFAULTS.CONSOLE_MAX_PER_ACCOUNT}) servers at once, open or ` +
        "ticketed; a new ticket for a server withdraws that server's earlier unused one. A console is not a host " +
        "operation: it is granted while a power action runs (no `server_busy`) and does not count against the " +
        "account's host-operation limit, but tickets are limited per account and per server. No body. " +
        "Answered with `Cache-Control: no-store`.",
      requestParams: { path: serverIdParam },
      responses: {
        "201": { description: "The ticket.", content: jsonContent(ConsoleTicketSchema) },
        "404": serverNotFound,
        "409": errorResponse(
          "`server_not_active`: being built, suspended or terminated; `server_stopped`: start it first.",
          ["server_not_active", "server_stopped"],
        ),
        "429": ticketsLimited,
      },
    }),
    delete: authed("servers:console", {
      tags: ["Console"],
      operationId: "closeServerConsoles",
      summary: "Close the server's consoles",
      description:
        "Closes every console of this server the account has open, on every instance (`closed_by_owner`), and " +
        "withdraws unused tickets: for a console opened with a key that may be lost. Revoking the key (or " +
        "signing the dashboard session out) closes the consoles it opened too.",
      requestParams: { path: serverIdParam },
      responses: {
        "200": { description: "Closed.", content: jsonContent(ConsolesClosedSchema) },
        "404": serverNotFound,
      },
    }),
  },
  "/servers/{id}/console/socket": {
    get: publicOperation({
      tags: ["Console"],
      operationId: "consoleWebSocket",
      summary: "The console's WebSocket (Upgrade: websocket)",
      description:
        "Connect with `Upgrade: websocket` and `Sec-WebSocket-Protocol: " +
        CONSOLE_PROTOCOL +
        ", ticket.<ticket>`; no API key (the ticket is the credential). `101 Switching Protocols` selects `" +
        CONSOLE_PROTOCOL +
        "`, and the frames of the Console section follow. Refusals come as HTTP answers before the upgrade, " +
        "and none of them touches the host.",
      requestParams: { path: serverIdParam },
      responses: {
        "101": { description: `Switching to the WebSocket protocol \`${CONSOLE_PROTOCOL}\`.` },
        "401": errorResponse(
          "No ticket offered, or it is unknown, already used, expired or for another server. Unknown tickets " +
            "count against the client address's limit of bad API keys (`RATE_LIMIT_AUTH_FAILURES`).",
          ["invalid_ticket"],
        ),
        "403": errorResponse("A browser page of another origin (`Origin`).", ["forbidden_origin"]),
        "404": errorResponse("Not a server id.", ["not_found"]),
        "409": errorResponse("The server stopped being active since the ticket was issued.", [
          "server_not_active",
        ]),
        "426": errorResponse("A request without `Upgrade: websocket`.", ["upgrade_required"]),
        "429": errorResponse(
          "This client address sent too many unknown tickets or bad API keys; nothing was looked up.",
          ["rate_limited"],
          retryAfter,
        ),
        "503": responses.unavailable,
      },
    }),
  },
};
