import { channel } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { recordSocketAddresses } from "@/lib/rate-limit/client-address";
import { fromLoopback, isLoopbackAddress } from "./loopback";

describe("loopback clients", () => {
  it("knows loopback addresses in every spelling, and nothing else", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"]) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
    for (const address of [
      "10.0.0.1",
      "203.0.113.5",
      "::ffff:203.0.113.5",
      "::",
      "fe80::1",
      "::11",
      "1::1",
      "unknown",
      "",
    ]) {
      expect(isLoopbackAddress(address), address).toBe(false);
    }
  });

  describe("by the socket the HTTP server recorded, never by a header", () => {
    beforeAll(() => recordSocketAddresses());

    /** The headers a route would see for a request whose TCP peer is `remoteAddress`. */
    function requestFrom(remoteAddress: string, headers: Record<string, string> = {}): Headers {
      const request = { headers: { ...headers } } as unknown as IncomingMessage;
      // What node's HTTP server publishes as each request starts; the recorder tags the socket's address.
      channel("http.server.request.start").publish({ request, socket: { remoteAddress } });
      return new Headers(request.headers as Record<string, string>);
    }

    it("lets a loopback peer in, whatever it forwards", () => {
      expect(fromLoopback(requestFrom("127.0.0.1"))).toBe(true);
      expect(fromLoopback(requestFrom("::1", { "x-forwarded-for": "203.0.113.5" }))).toBe(true);
    });

    it("refuses any other peer, even when it claims to be loopback", () => {
      expect(fromLoopback(requestFrom("203.0.113.5"))).toBe(false);
      const claims = { "x-forwarded-for": "127.0.0.1", "x-real-ip": "127.0.0.1", forwarded: "for=127.0.0.1" };
      expect(fromLoopback(requestFrom("198.51.100.7", claims))).toBe(false);
      // A request the recorder never saw, carrying a peer header of its own making.
      expect(fromLoopback(new Headers({ "x-vps-peer": "forged 127.0.0.1" }))).toBe(false);
      expect(fromLoopback(new Headers())).toBe(false);
    });
  });
});
