import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RESPONSE_EXCERPT_BYTES, type Resolver, resolveTarget, send } from "./transport";

type Seen = { method?: string; host?: string; headers: IncomingMessage["headers"]; body: string };

/** A receiver on loopback that records what reaches it and answers with `respond`. */
async function receiver(respond: (request: IncomingMessage, response: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      seen.push({ method: request.method, host: request.headers.host, headers: request.headers, body });
      respond(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push(server);
  return { port: (server.address() as AddressInfo).port, seen };
}

const open: Server[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const loopbackAllowed = { allowLoopback: true, httpsOnly: false };
const production = { allowLoopback: false, httpsOnly: true };

/** A resolver that answers `addresses` for every name and counts how often it was asked. */
function fakeResolver(addresses: string[]) {
  const calls: string[] = [];
  const resolve: Resolver = async (hostname) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, calls };
}

const post = (url: string) => ({
  url: new URL(url),
  headers: { "content-type": "application/json" },
  body: "{}",
});

describe("sending a notification", () => {
  it("resolves the name once and connects to that address, with the URL's host in the request", async () => {
    const target = await receiver((_, response) => response.end("ok"));
    const dns = fakeResolver(["127.0.0.1"]);
    const outcome = await send(
      post(`http://hooks.example.test:${target.port}/in`),
      loopbackAllowed,
      dns.resolve,
    );
    expect(outcome).toMatchObject({ status: 200, error: null, excerpt: "ok" });
    expect(dns.calls).toEqual(["hooks.example.test"]);
    expect(target.seen).toHaveLength(1);
    expect(target.seen[0]?.host).toBe(`hooks.example.test:${target.port}`);
  });

  it("refuses a name that resolves to loopback in production, and connects to nothing", async () => {
    const target = await receiver((_, response) => response.end("ok"));
    const dns = fakeResolver(["127.0.0.1"]);
    const outcome = await send(post(`https://rebind.example.test:${target.port}/`), production, dns.resolve);
    expect(outcome.status).toBeNull();
    expect(outcome.error).toBe("refused: rebind.example.test resolves to 127.0.0.1, a loopback address");
    expect(target.seen).toHaveLength(0);
  });

  it("refuses a name with one private address among public ones", async () => {
    const dns = fakeResolver(["93.184.216.34", "10.0.0.8"]);
    const outcome = await send(post("https://mixed.example.test/"), production, dns.resolve);
    expect(outcome.error).toBe("refused: mixed.example.test resolves to 10.0.0.8, a private address");
  });

  it("refuses address literals that are not public, however they are written, without resolving", async () => {
    const dns = fakeResolver(["93.184.216.34"]);
    for (const [url, refusal] of [
      ["https://127.0.0.1/", "127.0.0.1 is a loopback address"],
      ["https://2130706433/", "127.0.0.1 is a loopback address"],
      ["https://0x7f.0.0.1/", "127.0.0.1 is a loopback address"],
      ["https://127.1/", "127.0.0.1 is a loopback address"],
      ["https://[::1]/", "::1 is a loopback address"],
      ["https://[::ffff:127.0.0.1]/", "127.0.0.1 is a loopback address"],
      ["https://10.1.2.3/", "10.1.2.3 is a private address"],
      ["https://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"],
      ["https://[fe80::1]/", "fe80::1 is a link-local address"],
    ] as const) {
      expect(await resolveTarget(new URL(url), production, dns.resolve), url).toEqual({ refused: refusal });
    }
    expect(dns.calls).toEqual([]);
    expect(await resolveTarget(new URL("https://93.184.216.34/"), production, dns.resolve)).toEqual({
      target: { address: "93.184.216.34", family: 4 },
    });
  });

  it("refuses http in production before resolving anything", async () => {
    const dns = fakeResolver(["93.184.216.34"]);
    const outcome = await send(post("http://plain.example.test/"), production, dns.resolve);
    expect(outcome.error).toBe("refused: only https URLs are sent to");
    expect(dns.calls).toEqual([]);
  });

  it("does not follow a redirect: the 3xx is the answer, and its target hears nothing", async () => {
    const inner = await receiver((_, response) => response.end("inner"));
    const outer = await receiver((_, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${inner.port}/` });
      response.end();
    });
    const outcome = await send(post(`http://127.0.0.1:${outer.port}/`), loopbackAllowed);
    expect(outcome.status).toBe(302);
    expect(outer.seen).toHaveLength(1);
    expect(inner.seen).toHaveLength(0);
  });

  it("keeps at most the first 256 bytes of an answer, and reads no further", async () => {
    const target = await receiver((_, response) => {
      response.writeHead(500);
      response.end("x".repeat(1_000_000));
    });
    const outcome = await send(post(`http://127.0.0.1:${target.port}/`), loopbackAllowed);
    expect(outcome.status).toBe(500);
    expect(outcome.excerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
  });

  it("gives up on a receiver that does not answer in time", async () => {
    await receiver(() => undefined).then(async (target) => {
      const outcome = await send(post(`http://127.0.0.1:${target.port}/`), loopbackAllowed, undefined, 300);
      expect(outcome).toMatchObject({ status: null, error: "no answer within 0.3 s" });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    });
  });

  it("says why when nothing listens", async () => {
    const target = await receiver((_, response) => response.end());
    const port = target.port;
    open.pop()?.close();
    const outcome = await send(post(`http://127.0.0.1:${port}/`), loopbackAllowed);
    expect(outcome).toMatchObject({ status: null, error: "connection refused" });
  });
});
