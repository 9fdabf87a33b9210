import { describe, expect, inject, it } from "vitest";
import { type RunningApp, startApp } from "../support/app-server";
import { fund } from "./funding";
import { createAccount, randomIp } from "./helpers";

/**
 * Server reads may be served from what this instance read before, keyed by the account's server revision
 * (lib/servers/read-cache.ts). These tests hold that to "never stale": every change, by the owner, by the
 * background work or by another instance, shows on the very next read.
 */
type Server = { id: number; status: string; auto_renew: boolean; expires_at: string };

async function call(
  origin: string,
  path: string,
  key: string,
  init: { method?: string; body?: unknown } = {},
) {
  const response = await fetch(`${origin}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${key}`,
      "x-forwarded-for": randomIp(),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The list's entry and the detail for `id`, each read twice (the second read may come from the cache). */
async function readTwice(origin: string, key: string, id: number) {
  let listed: Server | undefined;
  let detail: Server | undefined;
  for (let i = 0; i < 2; i++) {
    const page = await call(origin, "/servers", key);
    listed = (page.body.servers as Server[]).find((server) => server.id === id);
    detail = (await call(origin, `/servers/${id}`, key)).body as unknown as Server;
  }
  return { listed, detail };
}

async function orderServer(origin: string, key: string): Promise<Server> {
  const ordered = await call(origin, "/servers", key, {
    method: "POST",
    body: { plan: "pup", location: "nl", os: "debian-13" },
  });
  expect(ordered.status).toBe(201);
  return ordered.body as unknown as Server;
}

async function waitForStatus(origin: string, key: string, id: number, status: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await call(origin, `/servers/${id}`, key)).body.status !== status) {
    if (Date.now() > deadline)
      throw new Error(
        `server ${id} never became ${status}: ${JSON.stringify((await call(origin, `/servers/${id}`, key)).body)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Changes a server through `writer` and checks each change on the next read through `reader`. */
async function changesShowAtOnce(writer: string, reader: string) {
  const { apiKey } = await createAccount();
  await fund(apiKey, 30);
  const server = await orderServer(writer, apiKey);
  await waitForStatus(reader, apiKey, server.id, "active"); // a change made by the background work

  for (const autoRenew of [true, false, true]) {
    await readTwice(reader, apiKey, server.id);
    const patched = await call(writer, `/servers/${server.id}`, apiKey, {
      method: "PATCH",
      body: { auto_renew: autoRenew },
    });
    expect(patched.status).toBe(200);
    const { listed, detail } = await readTwice(reader, apiKey, server.id);
    expect(listed?.auto_renew).toBe(autoRenew);
    expect(detail?.auto_renew).toBe(autoRenew);
  }

  const renewed = await call(writer, `/servers/${server.id}/renew`, apiKey, { method: "POST" });
  expect(renewed.status).toBe(200);
  const afterRenewal = await readTwice(reader, apiKey, server.id);
  expect(afterRenewal.listed?.expires_at).toBe(renewed.body.expires_at);
  expect(afterRenewal.detail?.expires_at).toBe(renewed.body.expires_at);

  const second = await orderServer(writer, apiKey);
  const page = await call(reader, "/servers", apiKey);
  expect((page.body.servers as Server[]).map((s) => s.id)).toEqual([second.id, server.id]);

  expect((await call(reader, `/servers/${server.id}/credentials`, apiKey)).status).toBe(200);
  expect((await call(writer, `/servers/${server.id}`, apiKey, { method: "DELETE" })).status).toBe(200);
  const afterTermination = await readTwice(reader, apiKey, server.id);
  expect(afterTermination.listed?.status).toBe("terminated");
  expect(afterTermination.detail?.status).toBe("terminated");
  const credentials = await call(reader, `/servers/${server.id}/credentials`, apiKey);
  expect(credentials.status).toBe(409);
  expect(credentials.body.error).toBe("server_terminated");
}

describe("server reads are never stale", () => {
  it("every change shows on the next read of the list, the detail and the credentials", async () => {
    await changesShowAtOnce(inject("baseUrl"), inject("baseUrl"));
  }, 60_000);

  it.runIf(inject("dbTarget") === "postgres")(
    "a change made through another app process shows on the next read here",
    async () => {
      let second: RunningApp | undefined;
      try {
        // The same DATA_DIR: demo instances keep their generated secrets there, and both must decrypt alike.
        second = await startApp({ ...inject("appEnv"), DATA_DIR: inject("appDataDir") });
        await changesShowAtOnce(inject("baseUrl"), second.url);
      } finally {
        await second?.stop();
      }
    },
    120_000,
  );
});
