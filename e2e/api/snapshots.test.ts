import { describe, expect, it } from "vitest";
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
type Snapshot = { id: number; name: string; kind: string; state: string; consistency: string | null };

const read = async (key: string, id: number) =>
  (await api(`/servers/${id}`, { key })).body as unknown as Server;
const listed = async (key: string, id: number) =>
  (await api(`/servers/${id}/snapshots`, { key })).body as unknown as {
    snapshots: Snapshot[];
    limit: number;
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
    expect(await listed(apiKey, server.id)).toEqual({ snapshots: [], limit: 3 });

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
