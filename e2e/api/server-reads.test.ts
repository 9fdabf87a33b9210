import { describe, expect, inject, it } from "vitest";
import { fund } from "./funding";
import { createAccount, randomIp, withSecondApp } from "./helpers";

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

/** `path` read through `reader` until `done` holds (a change the background work makes), or throws. */
async function readUntil(
  reader: string,
  key: string,
  path: string,
  done: (body: Record<string, unknown>) => boolean,
) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { body } = await call(reader, path, key);
    if (done(body)) return body;
    if (Date.now() > deadline) throw new Error(`${path} never changed as expected: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The parts of a server kept in tables of their own (snapshots and their schedule, firewall rules, resizes,
 * expiry warnings), changed through `writer`: each change shows on the next read through `reader`, read
 * twice before and after (on the embedded database they are reused until their tables are written).
 */
async function partsShowAtOnce(writer: string, reader: string) {
  const { apiKey } = await createAccount();
  await fund(apiKey, 30);
  const server = await orderServer(writer, apiKey);
  await waitForStatus(reader, apiKey, server.id, "active");
  const at = `/servers/${server.id}`;
  const twice = async (path: string) => {
    await call(reader, path, apiKey);
    return (await call(reader, path, apiKey)).body;
  };

  expect((await twice(`${at}/snapshots`)).snapshots).toEqual([]);
  const taken = await call(writer, `${at}/snapshots`, apiKey, { method: "POST", body: { name: "fresh" } });
  expect(taken.status).toBe(202);
  const listed = (await twice(`${at}/snapshots`)).snapshots as { id: number; name: string }[];
  expect(listed.map((snapshot) => [snapshot.id, snapshot.name])).toEqual([[taken.body.id, "fresh"]]);
  await readUntil(reader, apiKey, `${at}/snapshots/${taken.body.id}`, (body) => body.state === "available");

  expect((await twice(`${at}/snapshots/schedule`)).schedule).toBeNull();
  const schedule = { frequency: "daily", hour: 3 };
  expect(
    (await call(writer, `${at}/snapshots/schedule`, apiKey, { method: "PUT", body: schedule })).status,
  ).toBe(200);
  expect((await twice(`${at}/snapshots/schedule`)).schedule).toMatchObject(schedule);
  expect((await twice(`${at}/snapshots`)).schedule).toMatchObject(schedule);
  expect((await call(writer, `${at}/snapshots/schedule`, apiKey, { method: "DELETE" })).status).toBe(200);
  expect((await twice(`${at}/snapshots/schedule`)).schedule).toBeNull();

  expect((await twice(`${at}/firewall`)).rules).toEqual([]);
  const ssh = { direction: "in", protocol: "tcp", ports: "22", action: "accept" };
  expect(
    (await call(writer, `${at}/firewall`, apiKey, { method: "PUT", body: { rules: [ssh] } })).status,
  ).toBe(200);
  expect((await twice(`${at}/firewall`)).rules).toMatchObject([ssh]);

  expect((await twice(`${at}/resizes`)).resizes).toEqual([]);
  const resized = await call(writer, `${at}/resize`, apiKey, { method: "POST", body: { plan: "fox" } });
  expect(resized.status, JSON.stringify(resized.body)).toBe(202);
  expect(((await twice(`${at}/resizes`)).resizes as { id: number }[]).map((r) => r.id)).toEqual([
    resized.body.id,
  ]);
  await readUntil(reader, apiKey, `${at}/resizes`, (body) =>
    (body.resizes as { state: string }[]).every((resize) => resize.state === "done"),
  );

  const before = await twice(`${at}/expiry-warnings`);
  expect(before.expires_at).toBe(server.expires_at);
  const renewed = await call(writer, `${at}/renew`, apiKey, { method: "POST" });
  expect(renewed.status).toBe(200);
  const after = await twice(`${at}/expiry-warnings`);
  expect(after.expires_at).toBe(renewed.body.expires_at);
  expect(after.expires_at).not.toBe(before.expires_at);
}

describe("server reads are never stale", () => {
  it("every change shows on the next read of the list, the detail and the credentials", async () => {
    await changesShowAtOnce(inject("baseUrl"), inject("baseUrl"));
  }, 60_000);

  it("every change to a server's snapshots, schedule, firewall, resizes and warnings shows on the next read", async () => {
    await partsShowAtOnce(inject("baseUrl"), inject("baseUrl"));
  }, 90_000);

  it.runIf(inject("dbTarget") === "postgres")(
    "a change made through another app process shows on the next read here",
    () =>
      withSecondApp(async (second) => {
        await changesShowAtOnce(inject("baseUrl"), second);
        await partsShowAtOnce(inject("baseUrl"), second);
      }),
    120_000,
  );
});
