import "server-only";
import type { Subscriber } from "zeromq";
import { BlockTimes, type PushEvents, type PushLink } from "../deposits/push";

/** monerod publishes each block added to the main chain (a reorg's new branch too) under this topic. */
export const CHAIN_TOPIC = "json-full-chain_main";

type ChainBlock = { timestamp?: number; miner_tx?: { inputs?: { gen?: { height?: number } }[] } };

/**
 * The blocks of one `json-full-chain_main` message (`<topic>:<JSON array of blocks>`): each one's height,
 * read from its coinbase input, and its time. The full topic is read rather than the minimal one for the
 * times: the watcher reads the chain through the wallet, which tells no block's time.
 */
export function chainMainBlocks(message: string): { height: number; time: Date }[] {
  const colon = message.indexOf(":");
  if (colon < 0 || message.slice(0, colon) !== CHAIN_TOPIC) return [];
  let blocks: unknown;
  try {
    blocks = JSON.parse(message.slice(colon + 1));
  } catch {
    return [];
  }
  if (!Array.isArray(blocks)) return [];
  return (blocks as ChainBlock[]).flatMap((block) => {
    const height = block?.miner_tx?.inputs?.[0]?.gen?.height;
    const seconds = block?.timestamp;
    if (!Number.isSafeInteger(height) || !Number.isSafeInteger(seconds)) return [];
    return [{ height: height as number, time: new Date((seconds as number) * 1000) }];
  });
}

/**
 * monerod's push: a ZMQ subscriber to its publisher (`--zmq-pub tcp://127.0.0.1:18084`), which announces each
 * block with its height. The publisher has no authentication: it must listen on loopback or a private
 * network. libzmq reconnects by itself and sends heartbeats, so a dead connection is noticed within a minute.
 */
export class MoneroZmqPush implements PushLink {
  readonly kind = "zmq";
  private socket: Subscriber | undefined;
  private readonly times = new BlockTimes();

  constructor(private readonly url: string) {}

  blockTime(height: number): Date | undefined {
    return this.times.get(height);
  }

  start(events: PushEvents): void {
    this.open(events).catch((error: Error) => events.down(`ZMQ: ${error.message}`));
  }

  private async open(events: PushEvents) {
    // The native module is loaded only where a Monero push is configured.
    const { Subscriber } = await import("zeromq");
    const socket = new Subscriber({
      reconnectInterval: 1_000,
      reconnectMaxInterval: 30_000,
      heartbeatInterval: 10_000,
      heartbeatTimeout: 30_000,
    });
    this.socket = socket;
    socket.events.on("handshake", () => events.up());
    socket.events.on("disconnect", () => events.down("the node's ZMQ publisher closed the connection"));
    socket.connect(this.url);
    socket.subscribe(CHAIN_TOPIC);
    for await (const [frame] of socket) {
      if (!frame) continue;
      const blocks = chainMainBlocks(frame.toString("utf8"));
      // One notice per block, so a message of several is no gap in the heights (their polls coalesce).
      for (const block of blocks) {
        this.times.set(block.height, block.time);
        events.notice(block);
      }
      if (blocks.length === 0) events.notice();
    }
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    socket?.close();
  }
}
