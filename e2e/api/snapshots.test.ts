import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../support/webhook-receiver";
import { balanceOf } from "./funding";
import { api, createAccount, errorCode, until } from "./helpers";
import { accountWithActiveServer } from "./server-fixtures";

type Server = {
  id: number;
  os: string;
  hostname: string;
  status: string;
  ip: string | null;
  expires_at: string;
  status_reason: string | null;
  rescue: { state: string } | null;
};
type Snapshot = {
  id: number;
  name: string;
  kind: string;
  state: string;
  consistency: string | null;
  created_at: string;
  failure_reason: string | null;
};
type Schedule = { frequency: string; hour: number; weekday: string | null; next_run_at: string };

const read = async (key: string, id: number) =>
  (await api(`/servers/${id}`, { key })).body as unknown as Server;
const listed = async (key: string, id: number) =>
  (await api(`/servers/${id}/snapshots`, { key })).body as unknown as {
    snapshots: Snapshot[];
    limit: number;
    schedule: Schedule | null;
  };

/** An account with one active (simulated) server. */
const activeServer = () => accountWithActiveServer<Server>({ hostname: `snap-${Date.now().toString(36)}` });

const take = (key: string, id: number, body: unknown = {}, headers: Record<string, string> = {}) =>
  api(`/servers/${id}/snapshots`, { method: "POST", key, body, headers });
const available = (key: string, serverId: number, snapshotId: number) =>
  until(
    async () =>
      (await api(`/servers/${serverId}/snapshots/${snapshotId}`, { key })).body as unknown as Snapshot,
    (s) => s.state !== "creating",
  );

describe("snapshots (simulated provisioner)", () => {
  it("are free and limited as the catalog says, taken once per Idempotency-Key, restored after the host name, deleted", async () => {
    const catalog = (await api("/catalog")).body.snapshots as Record<string, unknown>;
    expect(catalog).toMatchObject({ per_server: 3, price_usd: 0, kept_after_termination_days: 14 });

    const { apiKey, server } = await activeServer();
    const balance = await balanceOf(apiKey);
    expect(await listed(apiKey, server.id)).toEqual({ snapshots: [], limit: 3, schedule: null });

    // Bad names are 400 and record nothing.
    for (const name of ["tab\there", "é", "x".repeat(65)]) {
      const refused = await take(apiKey, server.id, { name });
      expect(refused.status, name).toBe(400);
    }
    expect((await take(apiKey, server.id, { name: "ok", extra: 1 })).status).toBe(400);
    expect((await listed(apiKey, server.id)).snapshots).toEqual([]);

    const headers = { "idempotency-key": `snap-${server.id}` };
    const first = await take(apiKey, server.id, { name: "Before the upgrade" }, headers);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ name: "Before the upgrade", kind: "manual", state: "creating" });
    const replay = await take(apiKey, server.id, { name: "Before the upgrade" }, headers);
    expect(replay.body.id).toBe(first.body.id);
    const snapshot = await available(apiKey, server.id, first.body.id as number);
    expect(snapshot).toMatchObject({ state: "available", consistency: "frozen" });
    expect((await listed(apiKey, server.id)).snapshots).toHaveLength(1);

    // Another account sees none of it.
    const other = await createAccount();
    for (const [path, method, body] of [
      [`/servers/${server.id}/snapshots`, "GET", undefined],
      [`/servers/${server.id}/snapshots`, "POST", {}],
      [`/servers/${server.id}/snapshots/${snapshot.id}`, "GET", undefined],
      [`/servers/${server.id}/snapshots/${snapshot.id}/restore`, "POST", { confirm: server.hostname }],
      [`/servers/${server.id}/snapshots/${snapshot.id}`, "DELETE", undefined],
      [`/servers/${server.id}/rescue`, "POST", {}],
    ] as const) {
      expect((await api(path, { method, key: other.apiKey, body })).status, `${method} ${path}`).toBe(404);
    }

    // Up to the limit, then 409 naming the way out.
    for (const name of ["two", "three"]) {
      const taken = await take(apiKey, server.id, { name });
      expect(taken.status).toBe(202);
      await available(apiKey, server.id, taken.body.id as number);
    }
    const full = await take(apiKey, server.id, { name: "four" });
    expect(full.status).toBe(409);
    expect(errorCode(full)).toBe("snapshot_limit_reached");
    expect((await listed(apiKey, server.id)).snapshots.map((s) => s.name)).toEqual([
      "three",
      "two",
      "Before the upgrade",
    ]);

    // A restore needs the host name typed out; a wrong one changes nothing.
    const restorePath = `/servers/${server.id}/snapshots/${snapshot.id}/restore`;
    const wrong = await api(restorePath, { method: "POST", key: apiKey, body: { confirm: "not-it" } });
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe("confirmation_mismatch");
    expect((await read(apiKey, server.id)).status).toBe("active");
    const missing = await api(`/servers/${server.id}/snapshots/999999/restore`, {
      method: "POST",
      key: apiKey,
      body: { confirm: server.hostname },
    });
    expect(missing.status).toBe(404);

    const restoring = await api(restorePath, {
      method: "POST",
      key: apiKey,
      body: { confirm: server.hostname },
    });
    expect(restoring.status).toBe(202);
    expect(restoring.body).toMatchObject({ status: "provisioning" });
    expect(restoring.body.status_reason).toContain('Restoring the snapshot "Before the upgrade"');
    const restored = await until(
      () => read(apiKey, server.id),
      (s) => s.status !== "provisioning",
    );
    expect(restored).toMatchObject({ status: "active", ip: server.ip, expires_at: server.expires_at });

    // Deleting frees a place; the snapshot is gone once its volume is.
    const deleted = await api(`/servers/${server.id}/snapshots/${snapshot.id}`, {
      method: "DELETE",
      key: apiKey,
    });
    expect(deleted.status).toBe(202);
    expect(deleted.body.state).toBe("deleting");
    await until(
      () => listed(apiKey, server.id),
      (list) => list.snapshots.length === 2,
    );
    expect((await api(`/servers/${server.id}/snapshots/${snapshot.id}`, { key: apiKey })).status).toBe(404);

    // Snapshots cost nothing.
    expect(await balanceOf(apiKey)).toBe(balance);
  });

  it("a reinstall keeps the old disk as a snapshot unless told not to, and at the limit says so", async () => {
    const { apiKey, server } = await activeServer();
    const reinstall = (body: Record<string, unknown>) =>
      api(`/servers/${server.id}/reinstall`, {
        method: "POST",
        key: apiKey,
        body: { confirm: server.hostname, ...body },
      });
    expect((await reinstall({})).status).toBe(202);
    await until(
      () => read(apiKey, server.id),
      (s) => s.status === "active",
    );
    const [kept] = (await listed(apiKey, server.id)).snapshots;
    expect(kept).toMatchObject({ kind: "reinstall", state: "available" });
    expect(kept?.name).toMatch(/^Before reinstall, /);

    for (const name of ["two", "three"]) {
      const taken = await take(apiKey, server.id, { name });
      await available(apiKey, server.id, taken.body.id as number);
    }
    const full = await reinstall({});
    expect(full.status).toBe(409);
    expect(errorCode(full)).toBe("snapshot_limit_reached");
    expect(full.body.message).toContain("snapshot_first: false");
    expect((await read(apiKey, server.id)).status).toBe("active");

    expect((await reinstall({ snapshot_first: false })).status).toBe(202);
    await until(
      () => read(apiKey, server.id),
      (s) => s.status === "active",
    );
    expect((await listed(apiKey, server.id)).snapshots).toHaveLength(3);
  });
});

describe("automatic snapshots (simulated provisioner, the test clock)", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  const serviceNow = async () => Date.parse((await api("/demo/clock")).body.now as string);
  /** Moves the service's clock a minute past `at`. */
  const moveTo = async (at: number) => {
    const seconds = Math.max(1, Math.ceil((at - (await serviceNow())) / 1000) + 60);
    expect((await api("/demo/clock", { method: "POST", body: { advance_seconds: seconds } })).status).toBe(
      200,
    );
  };
  /** The list once nothing is being taken or deleted, and it has `count` automatic snapshots or failures. */
  const afterRun = (key: string, id: number, done: (snapshots: Snapshot[]) => boolean) =>
    until(
      () => listed(key, id),
      (list) =>
        done(list.snapshots) &&
        list.snapshots.every((snapshot) => snapshot.state !== "creating" && snapshot.state !== "deleting"),
    );
  const automatic = (snapshots: Snapshot[]) => snapshots.filter((snapshot) => snapshot.kind === "automatic");

  it("a daily schedule takes one at each run and deletes the oldest automatic one at the limit, never a manual one; a limit of manual ones fails the run with snapshot.failed", async () => {
    const { apiKey, server } = await activeServer();
    const path = `/servers/${server.id}/snapshots/schedule`;
    const setSchedule = (body: unknown) => api(path, { method: "PUT", key: apiKey, body });
    for (const [body, code] of [
      [{ frequency: "hourly", hour: 3 }, "invalid_frequency"],
      [{ frequency: "daily", hour: 24 }, "invalid_hour"],
      [{ frequency: "daily", hour: 2.5 }, "invalid_hour"],
      [{ frequency: "weekly", hour: 3 }, "invalid_weekday"],
      [{ frequency: "weekly", hour: 3, weekday: "someday" }, "invalid_weekday"],
      [{ frequency: "daily", hour: 3, weekday: "monday" }, "invalid_weekday"],
    ] as const) {
      const refused = await setSchedule(body);
      expect([refused.status, errorCode(refused)], JSON.stringify(body)).toEqual([400, code]);
    }
    expect((await api(path, { key: apiKey })).body).toEqual({ schedule: null });
    const weekly = await setSchedule({ frequency: "weekly", hour: 4, weekday: "sunday" });
    expect(weekly.body.schedule).toMatchObject({ frequency: "weekly", hour: 4, weekday: "sunday" });
    const sunday = new Date((weekly.body.schedule as Schedule).next_run_at);
    expect([sunday.getUTCDay(), sunday.getUTCHours(), sunday.getUTCMinutes()]).toEqual([0, 4, 0]);

    // Every notification of this account reaches the receiver.
    const hook = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      body: { url: `${receiver.url}/snap` },
    });
    expect(hook.status).toBe(201);
    const manual = await take(apiKey, server.id, { name: "by hand" });
    await available(apiKey, server.id, manual.body.id as number);

    // Daily, at the hour after the service's present one.
    const hour = new Date((await serviceNow()) + 3_600_000).getUTCHours();
    const daily = await setSchedule({ frequency: "daily", hour });
    expect(daily.status).toBe(200);
    let schedule = daily.body.schedule as Schedule;
    expect(schedule).toMatchObject({ frequency: "daily", hour, weekday: null });
    expect((await listed(apiKey, server.id)).schedule).toEqual(schedule);
    const taken: Snapshot[] = [];
    for (let run = 1; run <= 3; run++) {
      await moveTo(Date.parse(schedule.next_run_at));
      const list = await afterRun(apiKey, server.id, (snapshots) =>
        automatic(snapshots).some((s) => !taken.some((t) => t.id === s.id) && s.state === "available"),
      );
      const fresh = automatic(list.snapshots).find((s) => !taken.some((t) => t.id === s.id));
      expect(fresh).toMatchObject({ state: "available", consistency: "frozen" });
      expect(fresh?.name).toMatch(/^Automatic, /);
      taken.push(fresh as Snapshot);
      const next = (await listed(apiKey, server.id)).schedule as Schedule;
      expect(Date.parse(next.next_run_at) - Date.parse(schedule.next_run_at)).toBe(86_400_000);
      schedule = next;
    }
    // The limit is 3: the third run deleted the first automatic one; the manual one stays.
    const after = (await listed(apiKey, server.id)).snapshots;
    expect(after.map((s) => s.id).sort()).toEqual(
      [manual.body.id as number, taken[1]?.id, taken[2]?.id].sort(),
    );

    // Only manual snapshots in the way: nothing of theirs is deleted, and the run fails, saying why.
    for (const snapshot of automatic(after)) {
      const path = `/servers/${server.id}/snapshots/${snapshot.id}`;
      expect((await api(path, { method: "DELETE", key: apiKey })).status).toBe(202);
      await until(
        async () => (await api(path, { key: apiKey })).status,
        (status) => status === 404,
      );
    }
    for (const name of ["two", "three"]) {
      const more = await take(apiKey, server.id, { name });
      expect(more.status).toBe(202);
      await available(apiKey, server.id, more.body.id as number);
    }
    await moveTo(Date.parse(((await listed(apiKey, server.id)).schedule as Schedule).next_run_at));
    const failed = await afterRun(apiKey, server.id, (snapshots) =>
      automatic(snapshots).some((s) => s.state === "failed"),
    );
    expect(failed.snapshots.filter((s) => s.kind === "manual")).toHaveLength(3);
    const [failure] = automatic(failed.snapshots);
    expect(failure?.failure_reason).toBe(
      "The scheduled snapshot was not taken (the server keeps 3 snapshots and none of them is automatic: delete one).",
    );
    const event = await until(
      async () =>
        receiver.received
          .filter((request) => request.path === "/snap")
          .map((request) => JSON.parse(request.body) as { type: string; data: Record<string, unknown> })
          .find((sent) => sent.type === "snapshot.failed"),
      (sent) => sent !== undefined,
    );
    expect(event?.data).toMatchObject({
      operation: "snapshot",
      reason: failure?.failure_reason,
      snapshot: { id: failure?.id, kind: "automatic" },
      server: { id: server.id },
    });

    // Off: the schedule goes, the snapshots stay.
    expect((await api(path, { method: "DELETE", key: apiKey })).body).toEqual({ schedule: null });
    expect((await listed(apiKey, server.id)).schedule).toBeNull();
    expect((await listed(apiKey, server.id)).snapshots.filter((s) => s.kind === "manual")).toHaveLength(3);
  }, 120_000);
});

describe("rescue mode (simulated provisioner)", () => {
  it("boots with a temporary password shown by /credentials, blocks a restore, and is left again", async () => {
    const { apiKey, server } = await activeServer();
    const rescuePath = `/servers/${server.id}/rescue`;
    expect((await api(rescuePath, { method: "POST", key: apiKey, body: { image: "x" } })).status).toBe(400);
    expect((await api(rescuePath, { method: "DELETE", key: apiKey })).status).toBe(409);

    const entered = await api(rescuePath, { method: "POST", key: apiKey, body: {} });
    expect(entered.status).toBe(202);
    expect(entered.headers.get("cache-control")).toContain("no-store");
    expect(entered.body).toMatchObject({ status: "active", rescue: { state: "entering" } });
    const rescuePassword = entered.body.rescue_password as string;
    expect(rescuePassword).toMatch(/^.{16,}$/);
    await until(
      () => read(apiKey, server.id),
      (s) => s.rescue?.state === "active",
    );
    const credentials = (await api(`/servers/${server.id}/credentials`, { key: apiKey })).body;
    expect(credentials.rescue_password).toBe(rescuePassword);
    expect(credentials.password).not.toBe(rescuePassword);

    // Nothing that rewrites the disk while the rescue system holds it.
    const taken = await take(apiKey, server.id, {});
    expect(taken.status).toBe(202);
    await available(apiKey, server.id, taken.body.id as number);
    const restore = await api(`/servers/${server.id}/snapshots/${taken.body.id}/restore`, {
      method: "POST",
      key: apiKey,
      body: { confirm: server.hostname },
    });
    expect(restore.status).toBe(409);
    expect(errorCode(restore)).toBe("server_in_rescue");

    const left = await api(rescuePath, { method: "DELETE", key: apiKey });
    expect(left.status).toBe(202);
    expect(left.body).toMatchObject({ rescue: { state: "leaving" } });
    await until(
      () => read(apiKey, server.id),
      (s) => s.rescue === null,
    );
    expect((await api(`/servers/${server.id}/credentials`, { key: apiKey })).body.rescue_password).toBeNull();
  });
});
