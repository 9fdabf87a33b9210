/**
 * A console client for the tests and the benchmark: a ticket from the API, then the WebSocket with the
 * ticket offered as a subprotocol, exactly as the dashboard's terminal does it (but from Node, with `ws`).
 */
import WebSocket from "ws";
import type { ConsoleTicketBody } from "../../lib/api/schemas/console";
import {
  CONSOLE_PROTOCOL,
  type ServerMessage,
  TICKET_PROTOCOL_PREFIX,
} from "../../lib/servers/console/protocol";

export type ConsoleConnection = {
  ws: WebSocket;
  /** Everything the machine printed so far, as text. */
  output: () => string;
  /** The gateway's text frames so far. */
  messages: ServerMessage[];
  /** Resolves once the output (since `from`, default: the start) contains `text`; rejects after `timeoutMs`. */
  waitFor: (text: string | RegExp, timeoutMs?: number, from?: number) => Promise<void>;
  type: (text: string) => void;
  control: (message: unknown) => void;
  closed: Promise<{ code: number; reason: string }>;
};

export type Refusal = { status: number; body: Record<string, unknown>; headers: Record<string, unknown> };

/** Requests a ticket with an API key (the dashboard does the same through its BFF). */
export async function requestTicket(
  baseUrl: string,
  key: string,
  serverId: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: ConsoleTicketBody & { error?: string } }> {
  const response = await fetch(`${baseUrl}/api/v1/servers/${serverId}/console`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/**
 * Opens the WebSocket at `url` presenting `ticket`; resolves with the live connection once the upgrade
 * succeeded, or with the HTTP refusal the gateway answered instead.
 */
export function connectConsole(
  url: string,
  ticket: string | undefined,
  options: { origin?: string; protocols?: string[]; headers?: Record<string, string>; ca?: Buffer } = {},
): Promise<ConsoleConnection | Refusal> {
  const protocols = options.protocols ?? [
    CONSOLE_PROTOCOL,
    ...(ticket ? [`${TICKET_PROTOCOL_PREFIX}${ticket}`] : []),
  ];
  const ws = new WebSocket(url, protocols, {
    ...(options.origin ? { origin: options.origin } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    // A gateway with a certificate of its own (the chaos runs' nginx).
    ...(options.ca ? { ca: options.ca } : {}),
  });
  // After a refusal the half-open client is dropped; its late errors are of no interest.
  ws.on("error", () => {});
  let output = "";
  const messages: ServerMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on("message", (data, isBinary) => {
    const text = Buffer.isBuffer(data) ? data.toString("utf8") : String(data);
    if (isBinary) output += text;
    else messages.push(JSON.parse(text) as ServerMessage);
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const wake of waiters) wake();
    }),
  );
  const connection: ConsoleConnection = {
    ws,
    output: () => output,
    messages,
    waitFor: (text, timeoutMs = 10_000, from = 0) =>
      new Promise((resolve, reject) => {
        const found = () =>
          typeof text === "string" ? output.includes(text, from) : text.test(output.slice(from));
        if (found()) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `console: no ${String(text)} within ${timeoutMs} ms; got ${JSON.stringify(output.slice(-1_000))}`,
            ),
          );
        }, timeoutMs);
        const check = () => {
          if (!found()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      }),
    type: (text) => ws.send(Buffer.from(text, "utf8")),
    control: (message) => ws.send(JSON.stringify(message)),
    closed,
  };
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(connection));
    ws.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      response.on("end", () => {
        let parsed: Record<string, unknown> = {};
        try {
          parsed = JSON.parse(body);
        } catch {
          parsed = { unparsed: body };
        }
        resolve({ status: response.statusCode ?? 0, body: parsed, headers: response.headers });
        ws.terminate();
      });
    });
    ws.once("error", (error) => reject(error));
  });
}

export const isRefusal = (value: ConsoleConnection | Refusal): value is Refusal => "status" in value;

/** Opens a console expecting success; throws with the refusal otherwise. */
export async function openConsole(
  url: string,
  ticket: string,
  origin?: string,
  ca?: Buffer,
): Promise<ConsoleConnection> {
  const result = await connectConsole(url, ticket, { origin, ca });
  if (isRefusal(result)) throw new Error(`console refused: ${result.status} ${JSON.stringify(result.body)}`);
  return result;
}

/**
 * Presses Enter until the guest's getty shows `<hostname> login: ` (the machine may still be booting), then
 * logs root in with `password` and waits for the shell's prompt.
 */
export async function logInOnConsole(
  session: ConsoleConnection,
  hostname: string,
  password: string,
  timeoutMs = 300_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    session.type("\r");
    try {
      await session.waitFor(`${hostname} login: `, 3_000);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
  let from = session.output().length;
  session.type("root\r");
  await session.waitFor("Password: ", 20_000, from);
  from = session.output().length;
  session.type(`${password}\r`);
  await session.waitFor("# ", 20_000, from);
}
