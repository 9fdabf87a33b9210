import "server-only";
import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { ApiError, tooManyRequests } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { clientFromChain } from "@/lib/rate-limit/client-address";
import { consume, limiters, limitKeyForAddress } from "@/lib/rate-limit/limits";
import type { ConsoleEnd, ConsoleStream } from "@/lib/servers/console/stream";
import { provisioner } from "@/lib/servers/provisioner";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { onSignal } from "@/lib/util/signals";
import { consoleSettings } from "./config";
import { InputPacer } from "./pacing";
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
  consolesToEnd,
  isUnknownTicket,
  markConsolesSeen,
  type RedeemedConsole,
  recordConsoleClosed,
  recordConsoleFirstByte,
  redeemConsoleTicket,
  SEEN_INTERVAL_MS,
} from "./tickets";

/**
 * Output waiting for a slow client beyond this pauses the machine's side until it drains below the low mark;
 * a client still behind after CONSOLE_BEHIND_SECONDS is cut off (pausing only moves the backlog into virsh,
 * which keeps reading the machine's stream), and at once past the hard limit.
 */
const HIGH_WATER_BYTES = 1024 * 1024;
const LOW_WATER_BYTES = 256 * 1024;
const BEHIND_MAX_BYTES = 4 * 1024 * 1024;
/** Input taken at once before the per-second rate applies: a paste's worth. */
export const INPUT_BURST_BYTES = 64 * 1024;
/**
 * Input held while the client's socket is paused: what the WebSocket had already read when it was told to
 * stop. More than this means a client that does not stop; its session is closed.
 */
const HELD_INPUT_MAX_BYTES = 128 * 1024;
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
      ...Object.entries(error.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
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
 *
 * Flow control both ways, so that neither side's speed turns into memory here: the client's input is paced
 * (a burst, then CONSOLE_INPUT_BYTES_PER_SECOND) and the WebSocket is not read while input waits for its
 * turn or for the machine's side to drain (the rest waits in the client's socket); output a client does not
 * read pauses the machine's side, and a client that stays behind is cut off.
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
  let behindTimer: NodeJS.Timeout | undefined;

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
      clearTimeout(behindTimer);
      clearTimeout(input.timer);
      if (consoles.get(server.id)?.sessionId === sessionId) consoles.delete(server.id);
      stream?.close();
      if (reason === "client_behind") {
        // What it did not read is dropped with the connection: a close frame would wait behind it.
        ws.terminate();
      } else if (ws.readyState === WebSocket.OPEN) {
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

  /** Client input not yet written: frames the WebSocket had read before it was paused. */
  const input = {
    pacer: new InputPacer(settings.inputBytesPerSecond, INPUT_BURST_BYTES),
    held: [] as Buffer[],
    heldBytes: 0,
    /** The machine's side said it is full; written again on its drain. */
    full: false,
    reading: true,
    timer: undefined as NodeJS.Timeout | undefined,
  };
  const pump = () => {
    input.timer = undefined;
    while (input.held.length > 0 && !input.full && !ended) {
      const next = input.held[0] as Buffer;
      const wait = input.pacer.take(next.length);
      if (wait > 0) {
        input.timer = setTimeout(pump, wait);
        break;
      }
      input.held.shift();
      input.heldBytes -= next.length;
      if (stream?.write(next) === false) input.full = true;
    }
    const waiting = input.held.length > 0 || input.full;
    if (waiting && input.reading) ws.pause();
    else if (!waiting && !input.reading) ws.resume();
    input.reading = !waiting;
  };
  const take = (bytes: Buffer) => {
    input.held.push(bytes);
    input.heldBytes += bytes.length;
    if (input.heldBytes > HELD_INPUT_MAX_BYTES) return void end("input_overflow");
    if (!input.timer) pump();
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
        clearTimeout(behindTimer);
        stream?.resume();
      }
    });
    if (pending > BEHIND_MAX_BYTES) return void end("client_behind");
    if (!paused && pending > HIGH_WATER_BYTES) {
      paused = true;
      stream?.pause();
      behindTimer = setTimeout(() => void end("client_behind"), settings.behindSeconds * 1000);
    }
  };
  try {
    stream = provisioner().openConsole(server, {
      data: send,
      connected: firstByte,
      end: (why) => void end(ENDS[why]),
      drain: () => {
        input.full = false;
        if (!input.timer) pump();
      },
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
    if (isBinary) return take(toBuffer(data));
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
  // Made-up tickets are guesses like bad API keys, on the same count per address: past it, refused here,
  // before the database is asked.
  const guesses = limiters().authFailures;
  const addressKey = limitKeyForAddress(client);
  const wait = guesses.exhausted(addressKey);
  if (wait !== undefined) return refuse(socket, tooManyRequests(wait, {}));
  let redeemed: RedeemedConsole;
  try {
    redeemed = await redeemConsoleTicket(ticket, serverId, client);
  } catch (error) {
    if (isUnknownTicket(error)) {
      try {
        await consume(guesses, addressKey);
      } catch (limited) {
        if (limited instanceof ApiError) return refuse(socket, limited);
        throw limited;
      }
    }
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

/** Ends the consoles among `sessionIds` that this instance holds (other instances find them in the record). */
export async function endLiveConsoles(sessionIds: number[], reason: CloseReason): Promise<void> {
  const ids = new Set(sessionIds);
  await Promise.allSettled(
    [...liveConsoles().values()].filter((live) => ids.has(live.sessionId)).map((live) => live.end(reason)),
  );
}

/**
 * Ends the sessions this instance holds that must end: closed in the record elsewhere, or opened with a key
 * or session since revoked (lib/servers/console/tickets.ts consolesToEnd).
 */
async function endWhatTheRecordEnds(): Promise<void> {
  const live = [...liveConsoles().values()];
  const toEnd = await consolesToEnd(live.map((console) => console.sessionId));
  await Promise.allSettled(
    toEnd.map(({ sessionId, reason }) =>
      live.find((console) => console.sessionId === sessionId)?.end(reason),
    ),
  );
}

/**
 * Installs the gateway once per process, where the custom server (scripts/server.mjs) finds it, and starts
 * telling other instances which sessions are open here, every SEEN_INTERVAL_MS, ending those the record says
 * must end (closed elsewhere, or their key revoked); abandoned ones are swept now and then.
 */
export function installConsoleGateway(): void {
  processWide("console.gateway", () => {
    let ticks = 0;
    const timer = setInterval(async () => {
      ticks += 1;
      try {
        await markConsolesSeen([...liveConsoles().values()].map((live) => live.sessionId));
        await endWhatTheRecordEnds();
        if (ticks % SWEEP_EVERY === 0) await closeAbandonedConsoles();
      } catch (error) {
        console.error(`console sessions: ${firstLine(error)}`);
      }
    }, SEEN_INTERVAL_MS);
    timer.unref();
    // A key or session revoked on this instance ends what it opened here at once, not at the next tick.
    onSignal("credentials-revoked", () => {
      endWhatTheRecordEnds().catch((error) => console.error(`console sessions: ${firstLine(error)}`));
    });
    return { handleUpgrade: handleConsoleUpgrade, closeAll: closeAllConsoles, openCount: openConsoleCount };
  });
}
