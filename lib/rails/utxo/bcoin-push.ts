import "server-only";
import { NodeClient } from "bclient";
import type { PushEvents, PushLink } from "../deposits/push";

/** A chain entry as bcoin's socket sends it: the 80-byte header, then the height (u32 LE), then chainwork. */
export function chainEntryBlock(raw: Buffer): { height: number; time: Date } | undefined {
  if (!Buffer.isBuffer(raw) || raw.length < 84) return undefined;
  return { height: raw.readUInt32LE(80), time: new Date(raw.readUInt32LE(68) * 1000) };
}

/**
 * bcoin's push: its node's socket (bcoin's own client, `bclient`, on the RPC's host and port with its API
 * key), subscribed to chain events. `chain connect` announces each block with its height; a disconnect or a
 * reset (a reorg) is a notice without one. bcoin's socket pings and reconnects by itself.
 */
export class BcoinPush implements PushLink {
  readonly kind = "bcoin";
  private client: NodeClient | undefined;

  constructor(private readonly rpcUrl: string) {}

  start(events: PushEvents): void {
    const url = new URL(this.rpcUrl);
    const apiKey = url.password ? decodeURIComponent(url.password) : undefined;
    const ssl = url.protocol === "https:";
    // Only the chain: the node client's own sign-in also asks for every mempool transaction.
    class ChainClient extends NodeClient {
      override async auth() {
        if (apiKey) await this.call("auth", apiKey);
        await this.call("watch chain");
      }
    }
    const client = new ChainClient({
      host: url.hostname,
      port: Number(url.port) || (ssl ? 443 : 80),
      ssl,
      apiKey,
    });
    client.on("connect", () => events.up());
    client.on("disconnect", () => events.down("the node's socket closed"));
    // Connection failures and refused sign-ins; the socket retries by itself.
    client.on("error", (error: Error) => events.down(error.message));
    client.bind("chain connect", (raw) => events.notice(chainEntryBlock(raw)));
    client.bind("chain disconnect", () => events.notice());
    client.bind("chain reset", () => events.notice());
    this.client = client;
    client.open().catch((error: Error) => events.down(error.message));
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }
}
