import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { processWide } from "@/lib/util/process-wide";
import type { PushEvents, PushLink } from "./push";

export type NotifyListenerOptions = { host: string; port: number; secret: string };

/** Which network a notice is for: `POST /notify/<network>`. */
const ROUTE = /^\/notify\/([a-z0-9-]{1,32})$/;

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * The endpoint nodes without a push connection call on each block (litecoind's and bitcoind's `-blocknotify`
 * running `curl`): an HTTP listener of its own, apart from the app's public port (nginx never routes to it),
 * meant for loopback. Each call must carry `Authorization: Bearer <DEPOSIT_NOTIFY_SECRET>`; the body is not
 * read. A notice only wakes the watcher of that network, which then polls its node as usual, so a forged or
 * repeated one can cost a poll at most.
 */
export class NotifyListener {
  private readonly handlers = new Map<string, () => void>();
  private server: Server | undefined;
  private listening: Promise<void> | undefined;
  private readonly secret: Buffer;

  constructor(private readonly options: NotifyListenerOptions) {
    this.secret = digest(`Bearer ${options.secret}`);
  }

  /** Routes notices for `network` to `handler`; returns the function that stops routing them. */
  register(network: string, handler: () => void): () => void {
    this.handlers.set(network, handler);
    return () => {
      if (this.handlers.get(network) === handler) this.handlers.delete(network);
    };
  }

  /** Listens (once); resolves when it does, rejects when the address cannot be taken. */
  start(): Promise<void> {
    this.listening ??= new Promise<void>((resolve, reject) => {
      const server = createServer((request, response) => this.handle(request, response));
      server.requestTimeout = 5_000;
      server.headersTimeout = 5_000;
      server.once("error", reject);
      server.listen({ host: this.options.host, port: this.options.port }, () => {
        server.off("error", reject);
        server.on("error", (error) => console.error(`deposit notices: ${error.message}`));
        // Background work: it never keeps the process alive by itself.
        server.unref();
        resolve();
      });
      this.server = server;
    });
    return this.listening;
  }

  /** The port it listens on (the one asked for, or the one given for port 0). */
  get port(): number | undefined {
    const address = this.server?.address();
    return address && typeof address === "object" ? address.port : undefined;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.listening = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private authorized(request: IncomingMessage): boolean {
    const given = request.headers.authorization;
    return typeof given === "string" && timingSafeEqual(digest(given), this.secret);
  }

  private handle(request: IncomingMessage, response: ServerResponse) {
    // Nothing in a body is needed: the connection is closed instead of reading one.
    const answer = (status: number) => {
      response.writeHead(status, { "content-length": "0", connection: "close" });
      response.end();
    };
    if (!this.authorized(request)) return answer(401);
    const network = ROUTE.exec(new URL(request.url ?? "/", "http://notify").pathname)?.[1];
    const handler = network ? this.handlers.get(network) : undefined;
    if (!handler) return answer(404);
    if (request.method !== "POST") return answer(405);
    handler();
    answer(204);
  }
}

/** The process's listener for these settings (one per process, started by the first link that needs it). */
export function notifyListener(options: NotifyListenerOptions): NotifyListener {
  return processWide("deposits.notify-listener", () => new NotifyListener(options));
}

/**
 * The push of a node that runs a command per block (`-blocknotify`): its notices come through the process's
 * listener, routed by network. A notice says no height; the poll it wakes reads the tip.
 */
export class NotifyPush implements PushLink {
  readonly kind = "notify";
  private unregister: (() => void) | undefined;

  constructor(
    private readonly network: string,
    private readonly listener: NotifyListenerOptions,
  ) {}

  start(events: PushEvents): void {
    const listener = notifyListener(this.listener);
    this.unregister = listener.register(this.network, () => events.notice());
    listener.start().catch((error: Error) => {
      console.error(
        `deposit notices: cannot listen on ${this.listener.host}:${this.listener.port} (${error.message}); ` +
          "the watchers poll only",
      );
    });
  }

  async stop(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
  }
}
