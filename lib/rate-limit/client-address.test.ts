import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveSecrets } from "@/lib/util/subkeys";
import {
  clientFromChain,
  forwardedClient,
  forwardedClientHeaders,
  recordSocketAddresses,
  socketAddress,
} from "./client-address";

const toHeaders = (incoming: IncomingHttpHeaders) => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (typeof value === "string") headers.set(name, value);
  }
  return headers;
};

describe("the socket address recorder", () => {
  const seen: Headers[] = [];
  const server = createServer((req, res) => {
    seen.push(toHeaders(req.headers));
    res.end();
  });
  let port = 0;
  beforeAll(async () => {
    recordSocketAddresses();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A request from another loopback address, carrying headers a client might forge. */
  const send = (localAddress: string, headers: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, localAddress, headers }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });

  it("gives route code the socket's address, whatever headers the client sends", async () => {
    await send("127.0.0.2", { "x-forwarded-for": "198.51.100.9", "x-vps-peer": "forged 198.51.100.10" });
    await send("127.0.0.3", {});
    expect(seen.map(socketAddress)).toEqual(["127.0.0.2", "127.0.0.3"]);
  });

  it("ignores a peer header the recorder did not write", () => {
    expect(socketAddress(new Headers({ "x-vps-peer": "forged 198.51.100.10" }))).toBeUndefined();
    expect(socketAddress(new Headers())).toBeUndefined();
  });
});

describe("clientFromChain", () => {
  it("with no proxy (0 hops) is the socket's address, whatever X-Forwarded-For says", () => {
    expect(clientFromChain(["198.51.100.9"], "203.0.113.5", 0)).toBe("203.0.113.5");
    expect(clientFromChain([], "203.0.113.5", 0)).toBe("203.0.113.5");
  });

  it("behind one proxy is the address that proxy appended", () => {
    expect(clientFromChain(["198.51.100.9", "203.0.113.5"], "10.0.0.2", 1)).toBe("203.0.113.5");
    // No X-Forwarded-For: next start copies the socket's address into it.
    expect(clientFromChain(["10.0.0.2"], "10.0.0.2", 1)).toBe("10.0.0.2");
    expect(clientFromChain(["a", "b", "c"], "proxy", 2)).toBe("b");
  });

  it("without a recorded socket trusts no header when there is no proxy", () => {
    expect(clientFromChain(["198.51.100.9"], undefined, 0)).toBe("unknown");
    expect(clientFromChain(["198.51.100.9", "203.0.113.5"], undefined, 1)).toBe("203.0.113.5");
  });
});

describe("the dashboard server's signed client address", () => {
  const sessionSecret = "s".repeat(40);
  const { clientAddressKey: key } = deriveSecrets(sessionSecret, Buffer.alloc(32));

  it("is accepted with our key and refused when forged, altered or signed with another", () => {
    const headers = new Headers(forwardedClientHeaders(key, "203.0.113.5"));
    expect(forwardedClient(headers, key)).toBe("203.0.113.5");
    expect(forwardedClient(headers, Buffer.from("t".repeat(40)))).toBeUndefined();
    const value = headers.get("x-vps-client") ?? "";
    const altered = new Headers({ "x-vps-client": value.replace("203.0.113.5", "203.0.113.6") });
    expect(forwardedClient(altered, key)).toBeUndefined();
    expect(forwardedClient(new Headers({ "x-vps-client": "203.0.113.5" }), key)).toBeUndefined();
    expect(forwardedClient(new Headers(), key)).toBeUndefined();
  });

  it("is not signed with SESSION_SECRET itself, which seals cookies: that signature is refused", () => {
    const rawSigned = new Headers(forwardedClientHeaders(Buffer.from(sessionSecret), "203.0.113.5"));
    expect(forwardedClient(rawSigned, key)).toBeUndefined();
  });
});
