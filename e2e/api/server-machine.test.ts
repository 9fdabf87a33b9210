import { describe, expect, it } from "vitest";
import { balanceOf } from "./funding";
import { TEST_LIMITS } from "./global-setup";
import { api, createAccount, errorCode, until, waitForServer } from "./helpers";
import { accountWithActiveServer } from "./server-fixtures";

type Server = {
  id: number;
  os: string;
  hostname: string;
  status: string;
  ip: string | null;
  price_usd: number;
  expires_at: string;
  power_state: string | null;
  status_reason: string | null;
  ssh_keys: number;
  root_password?: string;
  traffic: {
    period_start: string;
    period_end: string;
    allowance_bytes: number;
    inbound_bytes: number;
    outbound_bytes: number;
    used_percent: number;
  } | null;
};

const read = async (key: string, id: number) =>
  (await api(`/servers/${id}`, { key })).body as unknown as Server;
const password = async (key: string, id: number) =>
  (await api(`/servers/${id}/credentials`, { key })).body.password as string;

const waitFor = (key: string, id: number, done: (server: Server) => boolean) =>
  waitForServer<Server>(key, id, done);

/**
 * The server reads as `before` did: every field the same, except that the traffic meter's counters may have
 * grown with the machine's own use (usage is sampled all the while); its period, allowance and marks are the same.
 */
async function expectUnchanged(key: string, before: Server) {
  const { traffic: meter, ...state } = await read(key, before.id);
  const { traffic: meterBefore, ...stateBefore } = before;
  expect(state).toEqual(stateBefore);
  if (!meter || !meterBefore) return expect(meter).toEqual(meterBefore);
  const { inbound_bytes: inbound, outbound_bytes: outbound, used_percent: used, ...terms } = meter;
  const counted = { inbound: meterBefore.inbound_bytes, outbound: meterBefore.outbound_bytes };
  const { inbound_bytes: _in, outbound_bytes: _out, used_percent: usedBefore, ...termsBefore } = meterBefore;
  expect(terms).toEqual(termsBefore);
  expect(inbound).toBeGreaterThanOrEqual(counted.inbound);
  expect(outbound).toBeGreaterThanOrEqual(counted.outbound);
  expect(used).toBeGreaterThanOrEqual(usedBefore);
}

/** An account with one active (simulated) server, ordered with one SSH key. */
const activeServer = () =>
  accountWithActiveServer<Server>({
    hostname: `box-${Date.now().toString(36)}`,
    ssh_keys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBlo2Yq9k3xwCMPzCvDtjHwC/8lgXh6ajzQHc3VHPOac me@laptop"],
  });

const reinstall = (key: string, id: number, body: unknown, headers: Record<string, string> = {}) =>
  api(`/servers/${id}/reinstall`, { method: "POST", key, body, headers });

describe("POST /servers/{id}/reinstall (simulated provisioner)", () => {
  it("refuses bad requests with a clear 4xx and changes nothing", async () => {
    const { apiKey, server } = await activeServer();
    const before = { server: await read(apiKey, server.id), password: await password(apiKey, server.id) };
    const balance = await balanceOf(apiKey);
    const cases: [unknown, number, string][] = [
      [{}, 400, "invalid_confirm"],
      [{ confirm: 42 }, 400, "invalid_confirm"],
      [{ confirm: "not-the-hostname" }, 400, "confirmation_mismatch"],
      [{ confirm: server.hostname, os: "windows-95" }, 400, "invalid_os"],
      [{ confirm: server.hostname, root_password: "short" }, 400, "invalid_root_password"],
      [{ confirm: server.hostname, ssh_keys: ["ssh-ed25519 nope"] }, 400, "invalid_ssh_key"],
      [{ confirm: server.hostname, plan: "fox" }, 400, "unknown_field"],
    ];
    for (const [body, status, code] of cases) {
      const refused = await reinstall(apiKey, server.id, body);
      expect([refused.status, errorCode(refused)], JSON.stringify(body)).toEqual([status, code]);
      expect(typeof refused.body.message).toBe("string");
    }
    // Another account's server is not found, even with the right hostname.
    const other = await createAccount();
    const foreign = await reinstall(other.apiKey, server.id, { confirm: server.hostname });
    expect([foreign.status, errorCode(foreign)]).toEqual([404, "not_found"]);
    expect((await api(`/servers/${server.id}/reinstall`, { key: apiKey })).status).toBe(405);

    await expectUnchanged(apiKey, before.server);
    expect(await password(apiKey, server.id)).toBe(before.password);
    expect(await balanceOf(apiKey)).toBe(balance);
  });

  it("reinstalls another OS with a new password, keeping id, address, plan and paid period; Idempotency-Key replays", async () => {
    const { apiKey, server } = await activeServer();
    const oldPassword = await password(apiKey, server.id);
    const balance = await balanceOf(apiKey);
    const headers = { "idempotency-key": `reinstall-${server.id}` };
    const body = { confirm: server.hostname.toUpperCase(), os: "debian-12", ssh_keys: [] };
    const first = await reinstall(apiKey, server.id, body, headers);
    expect(first.status).toBe(202);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const started = first.body as unknown as Server;
    expect(started).toMatchObject({
      id: server.id,
      status: "provisioning",
      os: "debian-12",
      power_state: null,
    });
    expect(started.status_reason).toMatch(/Reinstalling debian-12/);
    expect(started.root_password).toMatch(/^.{24}$/);
    expect(started.root_password).not.toBe(oldPassword);

    // While it runs, nothing else is accepted: no second reinstall, no power action, no new password.
    const again = await reinstall(apiKey, server.id, { confirm: server.hostname });
    expect([again.status, errorCode(again)]).toEqual([409, "server_not_active"]);
    const power = await api(`/servers/${server.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: "stop" },
    });
    expect(power.status).toBe(409);
    const newPassword = await api(`/servers/${server.id}/password`, { method: "POST", key: apiKey });
    expect([newPassword.status, errorCode(newPassword)]).toEqual([409, "server_not_active"]);

    // The same key with the same body replays (no password in the replay); with another body it is refused.
    const replay = await reinstall(apiKey, server.id, body, headers);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(server.id);
    expect(replay.body.root_password).toBeUndefined();
    const reused = await reinstall(apiKey, server.id, { ...body, os: "debian-13" }, headers);
    expect([reused.status, errorCode(reused)]).toEqual([422, "idempotency_key_reused"]);

    const done = await waitFor(apiKey, server.id, (s) => s.status === "active");
    expect(done).toMatchObject({
      id: server.id,
      os: "debian-12",
      ip: server.ip,
      price_usd: server.price_usd,
      expires_at: server.expires_at,
      power_state: "running",
      status_reason: null,
      ssh_keys: 0,
    });
    expect(await password(apiKey, server.id)).toBe(started.root_password);
    expect(await balanceOf(apiKey)).toBe(balance);

    // A chosen password is not echoed; /credentials has it. Omitted ssh_keys keep the current ones.
    const chosen = await reinstall(apiKey, server.id, {
      confirm: server.hostname,
      root_password: "Chosen-pass-42",
    });
    expect(chosen.status).toBe(202);
    expect(chosen.body.root_password).toBeUndefined();
    expect(chosen.body.os).toBe("debian-12");
    await waitFor(apiKey, server.id, (s) => s.status === "active");
    expect(await password(apiKey, server.id)).toBe("Chosen-pass-42");
  });
});

describe("POST /servers/{id}/password (simulated provisioner)", () => {
  it("sets a new root password and reveals it like /credentials; refuses stopped, terminated and foreign servers", async () => {
    const { apiKey, server } = await activeServer();
    const oldPassword = await password(apiKey, server.id);
    const generated = await api(`/servers/${server.id}/password`, { method: "POST", key: apiKey });
    expect(generated.status).toBe(200);
    expect(generated.headers.get("cache-control")).toBe("no-store");
    expect(generated.body).toEqual({ username: "root", password: expect.stringMatching(/^.{24}$/) });
    expect(generated.body.password).not.toBe(oldPassword);
    expect(await password(apiKey, server.id)).toBe(generated.body.password);

    const chosen = await api(`/servers/${server.id}/password`, {
      method: "POST",
      key: apiKey,
      body: { root_password: "Another-pass-77" },
    });
    expect(chosen.body).toEqual({ username: "root", password: "Another-pass-77" });
    expect(await password(apiKey, server.id)).toBe("Another-pass-77");

    for (const body of [{ root_password: "short" }, { root_password: "with spaces inside" }, { user: "x" }]) {
      const refused = await api(`/servers/${server.id}/password`, { method: "POST", key: apiKey, body });
      expect(refused.status).toBe(400);
    }
    const other = await createAccount();
    const foreign = await api(`/servers/${server.id}/password`, { method: "POST", key: other.apiKey });
    expect([foreign.status, errorCode(foreign)]).toEqual([404, "not_found"]);

    const stopped = await api(`/servers/${server.id}/actions`, {
      method: "POST",
      key: apiKey,
      body: { action: "stop" },
    });
    expect(stopped.body.power_state).toBe("stopped");
    const refused = await api(`/servers/${server.id}/password`, { method: "POST", key: apiKey });
    expect([refused.status, errorCode(refused)]).toEqual([409, "guest_agent_unavailable"]);
    expect(await password(apiKey, server.id)).toBe("Another-pass-77");

    expect((await api(`/servers/${server.id}`, { method: "DELETE", key: apiKey })).status).toBe(200);
    const gone = await api(`/servers/${server.id}/password`, { method: "POST", key: apiKey });
    expect([gone.status, errorCode(gone)]).toEqual([409, "server_not_active"]);
    const gone2 = await reinstall(apiKey, server.id, { confirm: server.hostname });
    expect([gone2.status, errorCode(gone2)]).toEqual([409, "server_not_active"]);
  });
});

describe("host operations: one at a time per server, a limit per account", () => {
  const changePassword = (key: string, id: number, body?: unknown) =>
    api(`/servers/${id}/password`, { method: "POST", key, body });
  const powerAction = (key: string, id: number, action: string) =>
    api(`/servers/${id}/actions`, { method: "POST", key, body: { action } });

  it("a password change in flight refuses other changes and power actions with 409 server_busy", async () => {
    const { apiKey, server } = await activeServer();
    let before = await password(apiKey, server.id);
    const calls = [
      () => changePassword(apiKey, server.id, { root_password: "First-pass-001" }),
      () => changePassword(apiKey, server.id, { root_password: "Second-pass-02" }),
      () => powerAction(apiKey, server.id, "reboot"),
      () => changePassword(apiKey, server.id, { root_password: "Third-pass-003" }),
    ];
    let results = await Promise.all(calls.map((call) => call()));
    // Sent together, they overlap the one that runs (a second here) unless the machine is so busy that they
    // reach the app further apart than that: then they are sent again, at most twice more.
    for (let retry = 0; retry < 2 && results.filter((r) => r.status === 200).length > 1; retry++) {
      before = await password(apiKey, server.id);
      results = await Promise.all(calls.map((call) => call()));
    }
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const winner = results.findIndex((r) => r.status === 200);
    const operation = winner === 2 ? "reboot" : "password";
    for (const [index, result] of results.entries()) {
      if (index === winner) continue;
      expect([result.status, errorCode(result)]).toEqual([409, "server_busy"]);
      expect(result.body.operation).toBe(operation);
    }
    // /credentials holds the one change that ran, or the old password when the reboot ran instead.
    const stored = await password(apiKey, server.id);
    expect(stored).toBe(winner === 2 ? before : (results[winner]?.body.password as string));
  });

  it("a reinstall while a snapshot is being taken is refused with 409 server_busy and changes nothing", async () => {
    const { apiKey, server } = await activeServer();
    const credentials = await password(apiKey, server.id);
    const state = await read(apiKey, server.id);
    // A snapshot is a host operation that runs as a job (a second or more here): the server is busy with it,
    // so the reinstall goes right after it, with nothing between them.
    const taken = await api(`/servers/${server.id}/snapshots`, { method: "POST", key: apiKey, body: {} });
    expect(taken.status).toBe(202);
    const refused = await reinstall(apiKey, server.id, { confirm: server.hostname, os: "debian-12" });
    expect([refused.status, errorCode(refused)]).toEqual([409, "server_busy"]);
    expect(refused.body).toMatchObject({ operation: "snapshot" });
    expect(Date.parse(refused.body.since as string)).not.toBeNaN();
    // Once the snapshot is done the server is as it was: same OS and password, nothing reinstalled or queued.
    await until(
      async () => (await api(`/servers/${server.id}/snapshots/${taken.body.id}`, { key: apiKey })).body,
      (snapshot) => snapshot.state !== "creating",
    );
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await expectUnchanged(apiKey, state);
    expect(await password(apiKey, server.id)).toBe(credentials);
    // Then a reinstall goes through.
    expect(
      (await reinstall(apiKey, server.id, { confirm: server.hostname, snapshot_first: false })).status,
    ).toBe(202);
  });

  it("past the account's limit: 429 with Retry-After, and the refused request changes and queues nothing", {
    timeout: 90_000,
  }, async () => {
    const { apiKey, server } = await activeServer();
    const ops = [() => changePassword(apiKey, server.id), () => powerAction(apiKey, server.id, "reboot")];
    // Refusals (4xx) along the way are given back: a reinstall with the wrong name, an unknown server.
    for (let used = 0; used < TEST_LIMITS.hostOperations; used++) {
      const result = await (ops[used % ops.length] as () => ReturnType<typeof api>)();
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      if (used === 0) {
        expect((await reinstall(apiKey, server.id, { confirm: "not-the-name" })).status).toBe(400);
        expect((await changePassword(apiKey, 999_999_999)).status).toBe(404);
      }
    }
    const credentials = await password(apiKey, server.id);
    const state = await read(apiKey, server.id);

    const refused = [
      await changePassword(apiKey, server.id, { root_password: "Refused-pass-1" }),
      await powerAction(apiKey, server.id, "stop"),
      await reinstall(apiKey, server.id, { confirm: server.hostname }),
    ];
    for (const result of refused) {
      expect([result.status, errorCode(result)]).toEqual([429, "rate_limited"]);
      const retryAfter = Number(result.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(result.headers.get("ratelimit-policy")).toBe(
        `"host-operations";q=${TEST_LIMITS.hostOperations};w=600`,
      );
    }
    // Nothing was done or queued: a queued stop or reinstall would have run by now (builds take 1 s here).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await expectUnchanged(apiKey, state);
    expect(state).toMatchObject({ status: "active", power_state: "running", os: server.os });
    expect(await password(apiKey, server.id)).toBe(credentials);

    // The limit is the account's: another account's server is served.
    const other = await activeServer();
    expect((await changePassword(other.apiKey, other.server.id)).status).toBe(200);
  });
});

it("the OpenAPI document describes both operations", async () => {
  const document = (await api("/openapi.json")).body as {
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  };
  const reinstallOp = document.paths["/servers/{id}/reinstall"]?.post;
  const passwordOp = document.paths["/servers/{id}/password"]?.post;
  expect(reinstallOp?.operationId).toBe("reinstallServer");
  expect(Object.keys(reinstallOp?.responses ?? {})).toEqual(
    expect.arrayContaining(["202", "400", "404", "409", "422", "429"]),
  );
  expect(passwordOp?.operationId).toBe("setServerRootPassword");
  expect(Object.keys(passwordOp?.responses ?? {})).toEqual(
    expect.arrayContaining(["200", "404", "409", "429", "502", "503"]),
  );
  for (const op of [reinstallOp, passwordOp, document.paths["/servers/{id}/actions"]?.post]) {
    const conflict = JSON.stringify(op?.responses["409"]);
    expect(conflict).toContain("server_busy");
    expect(JSON.stringify(op?.responses["429"])).toContain("RATE_LIMIT_HOST_OPERATIONS");
  }
});
