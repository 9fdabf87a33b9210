import "server-only";
import { readFile } from "node:fs/promises";

/** The node answered with a JSON-RPC error (as opposed to not answering at all). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/**
 * A JSON-RPC 1.0 client for Bitcoin Core-style nodes (bitcoind, litecoind, bcoin). Credentials come from
 * the URL (`http://user:pass@host:port`) or from the node's cookie file, read again on every call because
 * the node writes a new cookie each time it starts.
 */
export class BitcoinRpc {
  private readonly endpoint: string;
  private readonly urlAuth: string | undefined;
  private nextId = 1;

  constructor(
    url: string,
    private readonly cookieFile?: string,
    private readonly timeoutMs = 10_000,
  ) {
    const parsed = new URL(url);
    this.urlAuth =
      parsed.username || parsed.password
        ? `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`
        : undefined;
    parsed.username = "";
    parsed.password = "";
    this.endpoint = parsed.toString();
  }

  /** Where the node is, without credentials: safe to show in health and logs. */
  get displayUrl(): string {
    return this.endpoint;
  }

  private async authorization(): Promise<string | undefined> {
    const credentials = this.cookieFile ? (await readFile(this.cookieFile, "utf8")).trim() : this.urlAuth;
    return credentials ? `Basic ${Buffer.from(credentials).toString("base64")}` : undefined;
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    const auth = await this.authorization();
    if (auth) headers.authorization = auth;
    const request = () =>
      fetch(this.endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "1.0", id: this.nextId++, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    // The node closes idle keep-alive connections; a request sent on one just then fails before it is
    // read, so it is sent once more (the watcher's calls are all reads).
    const response = await request().catch((error: Error & { cause?: { code?: string } }) => {
      if (error.cause?.code === "UND_ERR_SOCKET") return request();
      throw error;
    });
    if (response.status === 401 || response.status === 403) {
      throw new Error(`${method}: the node refused our credentials (HTTP ${response.status})`);
    }
    const text = await response.text();
    let body: { result?: T; error?: { code: number; message: string } | null };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${method}: not a JSON-RPC answer (HTTP ${response.status})`);
    }
    if (body.error) throw new RpcError(body.error.code, `${method}: ${body.error.message}`);
    return body.result as T;
  }
}
