/**
 * A webhook receiver on loopback for tests and benchmarks: it records every request (headers, raw body, when
 * it arrived) and answers with the next status of its plan (200 once the plan is used up).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export type Received = { at: number; path: string; headers: IncomingHttpHeaders; body: string };

export type Receiver = {
  url: string;
  received: Received[];
  /** Statuses to answer with, in turn; 200 after them. */
  plan: number[];
  /** Extra response headers per answer (e.g. a redirect's location). */
  headers: Record<string, string>;
  /** Milliseconds to wait before answering. */
  delayMs: number;
  close: () => Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const receiver: Omit<Receiver, "url" | "close"> = { received: [], plan: [], headers: {}, delayMs: 0 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      receiver.received.push({
        at: Date.now(),
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const status = receiver.plan.shift() ?? 200;
      setTimeout(() => {
        response.writeHead(status, receiver.headers);
        response.end(status < 300 ? "received" : "not now");
      }, receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

/** Verifies a request with the Standard Webhooks verifier and the secret; returns the event it carries. */
export function verified(
  request: Received,
  secret: string,
): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}
