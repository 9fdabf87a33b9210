import "server-only";
import { BlockList, isIP } from "node:net";
import { socketAddress } from "@/lib/rate-limit/client-address";

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** This machine's loopback: 127.0.0.0/8 (also written IPv4-mapped) and ::1, in any spelling. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Whether the request came over a TCP connection from this machine, as the HTTP server recorded its socket.
 * No header takes part (X-Forwarded-For can say anything); a request whose socket was not recorded is not.
 */
export function fromLoopback(headers: Headers): boolean {
  const peer = socketAddress(headers);
  return peer !== undefined && isLoopbackAddress(peer);
}
