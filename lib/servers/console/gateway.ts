import "server-only";
import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { ApiError } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { clientFromChain } from "@/lib/rate-limit/client-address";
import type { ConsoleEnd, ConsoleStream } from "@/lib/servers/console/stream";
import { provisioner } from "@/lib/servers/provisioner";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { consoleSettings } from "./config";
import {
  CLOSE_REASONS,
  type CloseReason,
  CONSOLE_PROTOCOL,
  consoleSocketServerId,
  MAX_FRAME_BYTES,
  parseClientMessage,
  type ServerMessage,
  TICKET_PROTOCOL_PREFIX,
} from "./protocol";
import {
  closeAbandonedConsoles,
  markConsolesSeen,
  type RedeemedConsole,
  recordConsoleClosed,
  recordConsoleFirstByte,
  redeemConsoleTicket,
  SEEN_INTERVAL_MS,
} from "./tickets";

/** Output waiting for a slow client beyond this pauses the machine's side until it drains below the low mark. */
const HIGH_WATER_BYTES = 1024 * 1024;
const LOW_WATER_BYTES = 256 * 1024;
/** A client that answers no ping for two of these is gone (and proxies see traffic on an idle console). */
const PING_INTERVAL_MS = 25_000;
/** Abandoned sessions are swept once every this many seen-intervals. */
const SWEEP_EVERY = 6;

type LiveConsole = { sessionId: number; serverId: number; end: (reason: CloseReason) => Promise<void> };

/** The consoles this instance holds, by server: a server's console is one at a time. */
const liveConsoles = () => processWide("console.live", () => new Map<number, LiveConsole>());

const ENDS: Record<ConsoleEnd, CloseReason> = {
  closed: "ended",
  machine_stopped: "machine_stopped",
  replaced: "replaced",
  host_error: "host_error",
};

/** An HTTP answer on a socket we will not upgrade, in the API's error shape; then the socket is closed. */
function refuse(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify({ error: error.code, message: error.message });
  socket.end(
    [
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? "Error"}`,
      "Content-Type: application/json; charset=utf-8",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Cache-Control: no-store",
      "Connection: close",
      "",
      body,
    ].join("\r\n"),
  );
}

/**
 * Whether a browser's Origin is this service's: PUBLIC_BASE_URL's origin when configured, else an http(s)
 * origin naming the Host the request was sent to. A page elsewhere cannot open a console with a ticket it
 * somehow holds (cross-site WebSocket hijacking). Clients that are not browsers send no Origin.
 */
export function originAllowed(
  origin: string,
  host: string | undefined,
  publicBaseUrl: string | undefined,
): boolean {
  if (publicBaseUrl) return origin === new URL(publicBaseUrl).origin;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host === host?.toLowerCase();
  } catch {
    return false;
  }
}

/** The ticket offered as a subprotocol beside ours, or undefined when either is missing. */
export function offeredTicket(header: string | undefined): string | undefined {
  const offered = (header ?? "").split(",").map((entry) => entry.trim());
  if (!offered.includes(CONSOLE_PROTOCOL)) return undefined;
  return offered
    .find((entry) => entry.startsWith(TICKET_PROTOCOL_PREFIX))
    ?.slice(TICKET_PROTOCOL_PREFIX.length);
}

/** The client's address as the rate limits take it: TRUST_PROXY_HOPS steps left of the socket. */
function clientOf(request: IncomingMessage): string {
  const forwarded = String(request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  return clientFromChain(forwarded, request.socket.remoteAddress, config().trustProxyHops);
}

const toBuffer = (data: RawData): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);

/**
 * Carries one opened session: the machine's serial bytes to the client in binary frames, the client's
 * binary frames to the machine, its text frames as control messages; closes it on idle, at its longest
 * length, when the machine stops, when another console of the server opens, or when either side goes.
 */
function attach(ws: WebSocket, redeemed: RedeemedConsole, client: string): void {
  const { sessionId, server } = redeemed;
  const settings = consoleSettings();
  const consoles = liveConsoles();
  let stream: ConsoleStream | undefined;
  let ended: Promise<void> | undefined;
  let pending = 0;
  let paused = false;
  let answered = true;

  const idleTimer = setTimeout(() => void end("idle"), settings.idleTimeoutSeconds * 1000);
  const maxTimer = setTimeout(() => void end("max_duration"), settings.maxSeconds * 1000);
  const pingTimer = setInterval(() => {
    if (!answered) return void end("connection_lost");
    answered = false;
    ws.ping();
  }, PING_INTERVAL_MS);

  const end = (reason: CloseReason): Promise<void> => {
    ended ??= (async () => {
      clearTimeout(idleTimer);
      clearTimeout(maxTimer);
      clearInterval(pingTimer);
      if (consoles.get(server.id)?.sessionId === sessionId) consoles.delete(server.id);
      stream?.close();
      if (ws.readyState === WebSocket.OPEN) {
        const { code, message } = CLOSE_REASONS[reason];
        const closed: ServerMessage = { type: "closed", reason, message };
        ws.send(JSON.stringify(closed));
        ws.close(code, reason);
        // A client that never completes the closing handshake is cut off.
        setTimeout(() => ws.terminate(), 5_000).unref();
      }
      console.log(`vps: console session ${sessionId} (server ${server.id}) closed: ${reason}`);
      await recordConsoleClosed(sessionId, reason).catch((error) =>
        console.error(`console session ${sessionId}: the close was not recorded: ${firstLine(error)}`),
      );
    })();
    return ended;
  };

  // Another console of this server held here gives way (on another instance, the host's --force ends it).
  void consoles.get(server.id)?.end("replaced");
  consoles.set(server.id, { sessionId, serverId: server.id, end });
  ws.on("close", () => void end("ended"));
  ws.on("error", () => void end("connection_lost"));
  ws.on("pong", () => {
    answered = true;
  });
  console.log(
    `vps: console session ${sessionId} (server ${server.id}, account ${redeemed.accountId}) opened from ${client}`,
  );

  if (server.powerState !== "running") {
    void end("machine_stopped");
    return;
  }
  /** The machine's first byte (or virsh's word that it is connected), recorded once for the status page. */
  let reached = false;
  const firstByte = () => {
    if (reached) return;
    reached = true;
    recordConsoleFirstByte(sessionId, now()).catch((error) =>
      console.error(`console session ${sessionId}: the first byte was not recorded: ${firstLine(error)}`),
    );
  };
  const send = (chunk: Buffer) => {
    firstByte();
    if (ws.readyState !== WebSocket.OPEN) return;
    pending += chunk.length;
    ws.send(chunk, { binary: true }, () => {
      pending -= chunk.length;
      if (paused && pending < LOW_WATER_BYTES) {
        paused = false;
        stream?.resume();
      }
    });
    if (!paused && pending > HIGH_WATER_BYTES) {
      paused = true;
      stream?.pause();
    }
  };
  try {
    stream = provisioner().openConsole(server, {
      data: send,
      connected: firstByte,
      end: (why) => void end(ENDS[why]),
    });
  } catch (error) {
    console.error(`console session ${sessionId}: ${firstLine(error)}`);
    void end("host_error");
    return;
  }
  const ready: ServerMessage = {
    type: "ready",
    session_id: sessionId,
    server_id: server.id,
    demo: provisioner().simulated,
    idle_timeout_seconds: settings.idleTimeoutSeconds,
    closes_at: new Date(Date.now() + settings.maxSeconds * 1000).toISOString(),
  };
  ws.send(JSON.stringify(ready));
  ws.on("message", (data, isBinary) => {
    idleTimer.refresh();
    if (isBinary) {
      stream?.write(toBuffer(data));
      return;
    }
    const message = parseClientMessage(toBuffer(data).toString("utf8"));
    if (!message) void end("bad_message");
    else if (message.type === "resize") stream?.resize(message.cols, message.rows);
    else void end("ended");
  });
}

const webSockets = () =>
  processWide(
    "console.websockets",
    () =>
      new WebSocketServer({
        noServer: true,
        clientTracking: false,
        perMessageDeflate: false,
        maxPayload: MAX_FRAME_BYTES,
        handleProtocols: (offered) => (offered.has(CONSOLE_PROTOCOL) ? CONSOLE_PROTOCOL : false),
      }),
  );

/**
 * Takes a WebSocket upgrade for `/api/v1/servers/{id}/console/socket`. Everything is checked before the
 * host is touched, and a refusal is a plain HTTP answer: the path (404), the Origin (403), the ticket offered
 * as a subprotocol, unused, unexpired and for this server (401), the server still active (409).
 */
export async function handleConsoleUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  socket.on("error", () => {});
  const serverId = consoleSocketServerId(request.url);
  if (serverId === undefined || request.method !== "GET") {
    return refuse(socket, new ApiError(404, "not_found", "No console endpoint here."));
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !originAllowed(origin, request.headers.host, config().publicBaseUrl)) {
    return refuse(
      socket,
      new ApiError(403, "forbidden_origin", "A console opens only from this service's own pages (Origin)."),
    );
  }
  const ticket = offeredTicket(request.headers["sec-websocket-protocol"]);
  if (!ticket) {
    return refuse(
      socket,
      new ApiError(
        401,
        "invalid_ticket",
        `Offer the subprotocols ${CONSOLE_PROTOCOL} and ${TICKET_PROTOCOL_PREFIX}<ticket> (POST /servers/{id}/console).`,
      ),
    );
  }
  const client = clientOf(request);
  let redeemed: RedeemedConsole;
  try {
    redeemed = await redeemConsoleTicket(ticket, serverId, client);
  } catch (error) {
    if (error instanceof ApiError) return refuse(socket, error);
    console.error(`console upgrade: ${firstLine(error)}`);
    return refuse(
      socket,
      new ApiError(503, "service_unavailable", "The service is briefly unavailable; retry shortly."),
    );
  }
  if (socket.destroyed) {
    await recordConsoleClosed(redeemed.sessionId, "connection_lost").catch(() => undefined);
    return;
  }
  webSockets().handleUpgrade(request, socket, head, (ws) => attach(ws, redeemed, client));
}

/** Closes every console this instance holds (the instance is stopping): clients reconnect elsewhere. */
export async function closeAllConsoles(reason: CloseReason = "restarting"): Promise<void> {
  await Promise.allSettled([...liveConsoles().values()].map((live) => live.end(reason)));
}

/** How many consoles this instance holds (for the benchmark and the tests' process checks). */
export const openConsoleCount = () => liveConsoles().size;

/**
 * Installs the gateway once per process, where the custom server (scripts/server.mjs) finds it, and starts
 * telling other instances which sessions are open here; abandoned ones are swept now and then.
 */
export function installConsoleGateway(): void {
  processWide("console.gateway", () => {
    let ticks = 0;
    const timer = setInterval(async () => {
      ticks += 1;
      try {
        await markConsolesSeen([...liveConsoles().values()].map((live) => live.sessionId));
        if (ticks % SWEEP_EVERY === 0) await closeAbandonedConsoles();
      } catch (error) {
        console.error(`console sessions: ${firstLine(error)}`);
      }
    }, SEEN_INTERVAL_MS);
    timer.unref();
    return { handleUpgrade: handleConsoleUpgrade, closeAll: closeAllConsoles, openCount: openConsoleCount };
  });
}
