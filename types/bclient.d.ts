// bclient (bcoin's own HTTP and socket client) ships no types: the part the UTXO watcher's push uses.
declare module "bclient" {
  import { EventEmitter } from "node:events";

  export class NodeClient extends EventEmitter {
    constructor(options: { host?: string; port?: number; ssl?: boolean; apiKey?: string; timeout?: number });
    open(): Promise<void>;
    close(): Promise<void>;
    /** Sends a socket event and waits for its answer. */
    call(event: string, ...args: unknown[]): Promise<unknown>;
    /** Handles a socket event the node sends. */
    bind(event: string, handler: (...args: Buffer[]) => void): void;
    /** Runs on every (re)connection before `connect` is emitted. */
    auth(): Promise<void>;
  }
}
