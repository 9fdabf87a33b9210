import { pbkdf2 } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SILENT_ZONE, startDnsServer, type TestDnsServer } from "@/lib/testing/dns-server";
import { nameResolver, RESPONSE_EXCERPT_BYTES, type Resolver, resolveTarget, send } from "./transport";

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

const loopbackAllowed = { allowLoopback: true, httpsOnly: false, ports: [443, 80] };
const production = { allowLoopback: false, httpsOnly: true, ports: [443] };

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
    // What an internal name resolves to is not told: the answer would map the operator's network.
    expect(outcome.error).toBe("refused: rebind.example.test resolves to a non-public address");
    expect(target.seen).toHaveLength(0);
  });

  it("refuses a name with one private address among public ones", async () => {
    const dns = fakeResolver(["93.184.216.34", "10.0.0.8"]);
    const outcome = await send(post("https://mixed.example.test/"), production, dns.resolve);
    expect(outcome.error).toBe("refused: mixed.example.test resolves to a non-public address");
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
      ["https://[::7f00:1]/", "127.0.0.1 is a loopback address"],
      ["https://[4000::1]/", "4000::1 is not a global unicast address"],
      ["https://localhost/", "localhost is a loopback name"],
      ["https://api.localhost/", "api.localhost is a loopback name"],
    ] as const) {
      expect(await resolveTarget(new URL(url), production, dns.resolve), url).toEqual({ refused: refusal });
    }
    expect(dns.calls).toEqual([]);
    expect(await resolveTarget(new URL("https://93.184.216.34/"), production, dns.resolve)).toEqual({
      target: { address: "93.184.216.34", family: 4 },
    });
    // An IPv6 form carrying a public IPv4 address is sent to that IPv4 address.
    expect(await resolveTarget(new URL("https://[::ffff:5db8:d822]/"), production, dns.resolve)).toEqual({
      target: { address: "93.184.216.34", family: 4 },
    });
  });

  it("sends to a loopback receiver on any port where tests allow loopback, and to no other address there", async () => {
    const dns = fakeResolver(["93.184.216.34"]);
    expect(await resolveTarget(new URL("http://127.0.0.1:41234/"), loopbackAllowed, dns.resolve)).toEqual({
      target: { address: "127.0.0.1", family: 4 },
    });
    expect(
      await resolveTarget(new URL("http://far.example.test:41234/"), loopbackAllowed, dns.resolve),
    ).toEqual({
      refused: "Port 41234 is not accepted: notifications are sent to ports 443 and 80.",
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

describe("resolving a name (its own resolver, never the thread pool's getaddrinfo)", () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer({
      "hooks.example.test": ["93.184.216.34", "2606:4700:4700::1111"],
      "*.internal.example.test": ["10.0.3.7"],
    });
  });
  afterAll(() => dns.close());

  it("asks the configured servers for A and AAAA and judges every address", async () => {
    const resolve = nameResolver({ servers: [dns.address], timeoutMs: 1_000 });
    expect(await resolve("hooks.example.test")).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:4700:4700::1111", family: 6 },
    ]);
    expect(await resolveTarget(new URL("https://db.internal.example.test/"), production, resolve)).toEqual({
      refused: "db.internal.example.test resolves to a non-public address",
    });
    expect(await resolveTarget(new URL("https://nowhere.example.test/"), production, resolve)).toEqual({
      refused: "nowhere.example.test does not resolve",
    });
    expect(dns.asked).toContain("db.internal.example.test");
  });

  it("gives up on a name server that never answers within its bound, and the thread pool stays free meanwhile", async () => {
    const resolve = nameResolver({ servers: [dns.address], timeoutMs: 600 });
    const started = performance.now();
    // More lookups at once than libuv has threads (4): getaddrinfo would hold every one of them.
    const lookups = Array.from({ length: 16 }, (_, i) =>
      resolveTarget(new URL(`https://r${i}.${SILENT_ZONE}/`), production, resolve),
    );
    const poolStarted = performance.now();
    await new Promise((done, fail) =>
      pbkdf2("x", "y", 1, 32, "sha256", (error) => (error ? fail(error) : done(undefined))),
    );
    expect(performance.now() - poolStarted).toBeLessThan(200);
    const outcomes = await Promise.all(lookups);
    expect(performance.now() - started).toBeLessThan(1_500);
    for (const [i, outcome] of outcomes.entries()) {
      expect(outcome).toEqual({ refused: `r${i}.${SILENT_ZONE} could not be resolved in time` });
    }
    expect(dns.asked.filter((name) => name.endsWith(SILENT_ZONE)).length).toBeGreaterThanOrEqual(16);
  });
});
