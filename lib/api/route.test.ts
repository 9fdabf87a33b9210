import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readLimited } from "./body";
import { matchesEtag, publicRoute, sharedJson } from "./route";

/** Runs `body` with console.error captured; returns what was logged. */
async function logged(body: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  });
  try {
    await body();
  } finally {
    spy.mockRestore();
  }
  return lines.join("\n");
}

const route = { params: Promise.resolve({}) };

describe("what the API's route wrapper logs", () => {
  let client: PGlite;
  beforeAll(async () => {
    client = await PGlite.create();
    await client.exec("CREATE TABLE secrets (value text PRIMARY KEY)");
  }, 60_000);
  afterAll(() => client.close());

  it("never logs a failed query's parameters, neither from the message nor from the stack", async () => {
    const db = drizzle(client);
    const secret = "vpsk_parameter_that_must_not_be_logged";
    await db.execute(sql`INSERT INTO secrets VALUES (${secret})`);
    const handler = publicRoute(async () => {
      // A real unique violation: drizzle wraps it with the SQL and its parameters in the message.
      await db.execute(sql`INSERT INTO secrets VALUES (${secret})`);
      return new Response(null);
    });
    let response: Response | undefined;
    const log = await logged(async () => {
      response = await handler(new Request("http://127.0.0.1/api/v1/x"), route);
    });
    expect(response?.status).toBe(500);
    expect(await response?.json()).toMatchObject({ error: "internal_error" });
    expect(log).toContain("unhandled error");
    expect(log).toContain("duplicate key value");
    expect(log).toMatch(/ at /);
    expect(log).not.toContain(secret);
    expect(log).not.toContain("params:");
  });

  it.each([
    ["a connection closed mid-query", "Connection terminated unexpectedly"],
    [
      "a client broken by an earlier lost connection",
      "Client has encountered a connection error and is not queryable",
    ],
  ])("answers 503 with Retry-After for %s (PostgreSQL restarting)", async (_label, message) => {
    const handler = publicRoute(async () => {
      // As drizzle reports a node-postgres failure: its own error, the driver's as the cause.
      throw Object.assign(new Error("Failed query: select 1\nparams: "), { cause: new Error(message) });
    });
    let response: Response | undefined;
    const log = await logged(async () => {
      response = await handler(new Request("http://127.0.0.1/api/v1/x"), route);
    });
    expect(response?.status).toBe(503);
    expect(response?.headers.get("retry-after")).toBe("1");
    expect(await response?.json()).toMatchObject({ error: "service_unavailable" });
    expect(log).toContain("database unavailable");
  });

  it("answers a client that aborted its upload with a 4xx and logs nothing", async () => {
    // How Node hands a route the body of a connection the client closed mid-upload.
    const aborted = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":"par'));
        controller.error(aborted);
      },
    });
    const handler = publicRoute(async ({ request }) => {
      await readLimited(request, 1024);
      return new Response(null);
    });
    let response: Response | undefined;
    const log = await logged(async () => {
      const request = new Request("http://127.0.0.1/api/v1/keys", {
        method: "POST",
        body,
        duplex: "half",
      } as RequestInit);
      response = await handler(request, route);
    });
    expect(response?.status).toBe(400);
    expect(await response?.json()).toMatchObject({ error: "request_aborted" });
    expect(log).toBe("");
  });
});

describe("a document the same for everyone, revalidated with its ETag", () => {
  const etag = '"abc123"';
  const get = (ifNoneMatch?: string) =>
    sharedJson(
      new Request("http://127.0.0.1/api/v1/status", {
        headers: ifNoneMatch === undefined ? {} : { "if-none-match": ifNoneMatch },
      }),
      '{"ok":true}',
      etag,
      42,
    );

  it("answers 304 without a body to a client holding it, in any form If-None-Match names it", async () => {
    for (const header of ['"abc123"', 'W/"abc123"', '"old", "abc123"', "*"]) {
      expect(matchesEtag(header, etag)).toBe(true);
      const response = get(header);
      expect(response.status).toBe(304);
      expect(await response.text()).toBe("");
      expect(response.headers.get("etag")).toBe(etag);
    }
  });

  it("sends the document, its ETag and how long it may be kept otherwise", async () => {
    for (const header of [undefined, '"old"', "", "abc123"]) {
      const response = get(header);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true });
      expect(response.headers.get("cache-control")).toBe("public, max-age=42");
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    }
  });
});
