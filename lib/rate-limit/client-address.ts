import "server-only";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { processWide } from "@/lib/util/process-wide";

/**
 * Where each request's socket address travels from the HTTP server to the route handlers: route handlers
 * see only headers, and `next start` writes the socket address into X-Forwarded-For only when the request
 * has none, so a client could otherwise choose its own address. The value carries a per-process tag, so a
 * request that reached the server before the recorder was installed cannot bring its own.
 */
const PEER_HEADER = "x-vps-peer";
/** The client address the dashboard's server passes on when it calls the API for a browser, signed. */
const FORWARDED_CLIENT_HEADER = "x-vps-client";

const peerTag = () => processWide("client-address.peer-tag", () => randomBytes(18).toString("base64url"));

/** Installs the recorder once per process: every incoming request gets its socket's address, tagged. */
export function recordSocketAddresses(): void {
  processWide("client-address.recorder", () => {
    const tag = peerTag();
    subscribe("http.server.request.start", (message) => {
      const { request, socket } = message as { request: IncomingMessage; socket: Socket };
      request.headers[PEER_HEADER] = `${tag} ${socket.remoteAddress ?? "unknown"}`;
    });
    return true;
  });
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The socket address of this request, when the recorder saw it. */
export function socketAddress(headers: Headers): string | undefined {
  const [tag, address] = (headers.get(PEER_HEADER) ?? "").split(" ");
  return tag && address && sameText(tag, peerTag()) ? address : undefined;
}

/** `key` serves this signature only (derived from SESSION_SECRET, see lib/util/subkeys.ts). */
const signature = (key: Uint8Array, address: string) =>
  createHmac("sha256", key).update(`client-address\n${address}`).digest("base64url");

/** Headers with which the dashboard's server tells the API whose request it is making. */
export function forwardedClientHeaders(key: Uint8Array, address: string): Record<string, string> {
  return {
    [FORWARDED_CLIENT_HEADER]: `${signature(key, address)} ${address}`,
    // For an API elsewhere that does not share the secret: it may trust this as the hop it is.
    "x-forwarded-for": address,
  };
}

/** The client address our own dashboard server vouched for, if the request carries a valid one. */
export function forwardedClient(headers: Headers, key: Uint8Array): string | undefined {
  const value = headers.get(FORWARDED_CLIENT_HEADER);
  if (!value) return undefined;
  const space = value.indexOf(" ");
  const address = value.slice(space + 1);
  return space > 0 && address && sameText(value.slice(0, space), signature(key, address))
    ? address
    : undefined;
}

/**
 * The client among the addresses a request passed: X-Forwarded-For as received (each proxy appends what it
 * saw) followed by the socket's own address. Each trusted hop is one step left from the socket; with no
 * trusted hop the socket's address is the client. A chain shorter than that comes straight from a client
 * that skipped the proxies, and its leftmost entry is the best there is.
 */
export function clientFromChain(forwardedFor: string[], socket: string | undefined, hops: number): string {
  if (socket === undefined) {
    // Not recorded (only a request racing the server's start-up): without the socket, trust no header.
    if (hops === 0) return "unknown";
    return forwardedFor[Math.max(0, forwardedFor.length - hops)] ?? "unknown";
  }
  const chain = [...forwardedFor, socket];
  return chain[Math.max(0, chain.length - 1 - hops)] ?? socket;
}
