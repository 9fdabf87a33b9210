import "server-only";
import WebSocket from "ws";
import { type PushEvents, type PushLink, reconnectDelayMs } from "../deposits/push";

/** How often the socket is pinged; one left unanswered until the next closes it. */
const PING_MS = 15_000;
/** The id of our one request on each connection: the subscription. */
const SUBSCRIBE_ID = 1;

type Message = {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: { subscription?: string; result?: { number?: string; timestamp?: string } };
};

/** A `newHeads` notification's block: its number and time (hex quantities). */
export function newHead(head: { number?: string; timestamp?: string } | undefined) {
  if (!head?.number) return undefined;
  const height = Number(BigInt(head.number));
  const time = head.timestamp ? new Date(Number(BigInt(head.timestamp)) * 1000) : undefined;
  return { height, time };
}

/**
 * An EVM node's push: `eth_subscribe("newHeads")` over its WebSocket (geth `--ws`, anvil, a provider's wss://
 * URL). Each new head is a notice with its number. A closed socket reconnects after 1 s, doubling up to 30 s,
 * and subscribes again; `up` follows only once the subscription stands, so the poll it wakes (which reads logs
 * from the last block processed, and re-reads the reorg window when that block changed) misses nothing that
 * came meanwhile. A subscription that dies without a word (providers drop idle ones) is found by the poll's gap
 * check, which calls `renew`.
 */
export class NewHeadsPush implements PushLink {
  readonly kind = "websocket";
  private socket: WebSocket | undefined;
  private stopped = false;
  private attempt = 0;

  constructor(private readonly url: string) {}

  start(events: PushEvents): void {
    this.stopped = false;
    this.connect(events);
  }

  private connect(events: PushEvents) {
    const socket = new WebSocket(this.url, { handshakeTimeout: 10_000 });
    this.socket = socket;
    let subscription: string | undefined;
    let answered = true;
    let reason = "the connection closed";
    const ping = setInterval(() => {
      if (!answered) return socket.terminate();
      answered = false;
      socket.ping();
    }, PING_MS);
    ping.unref();
    socket.on("pong", () => {
      answered = true;
    });
    socket.on("open", () => {
      socket.send(
        JSON.stringify({ jsonrpc: "2.0", id: SUBSCRIBE_ID, method: "eth_subscribe", params: ["newHeads"] }),
      );
    });
    socket.on("message", (data) => {
      let message: Message;
      try {
        message = JSON.parse(data.toString()) as Message;
      } catch {
        return;
      }
      if (message.id === SUBSCRIBE_ID) {
        if (typeof message.result !== "string") {
          reason = `eth_subscribe refused: ${message.error?.message ?? "no subscription id"}`;
          return socket.close();
        }
        subscription = message.result;
        this.attempt = 0;
        return events.up();
      }
      if (message.method === "eth_subscription" && message.params?.subscription === subscription) {
        events.notice(newHead(message.params?.result));
      }
    });
    socket.on("error", (error) => {
      reason = error.message;
    });
    socket.on("close", () => {
      clearInterval(ping);
      if (this.socket === socket) this.socket = undefined;
      if (this.stopped) return;
      events.down(reason);
      setTimeout(
        () => {
          if (!this.stopped && !this.socket) this.connect(events);
        },
        reconnectDelayMs(this.attempt++),
      ).unref();
    });
  }

  renew(): void {
    // Closed at once; the close handler connects and subscribes again.
    this.socket?.terminate();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.socket?.terminate();
    this.socket = undefined;
  }
}
