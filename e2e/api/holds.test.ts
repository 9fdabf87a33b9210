import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addOperator, type OperatorSession, operatorApi, signInOperator } from "../support/operator";
import { type Receiver, startReceiver, verified } from "../support/webhook-receiver";
import { balanceOf } from "./funding";
import { api, errorCode, until } from "./helpers";
import { accountWithActiveServer } from "./server-fixtures";

/**
 * An operator's hold as the owner lives it, over HTTP on the suite's app (simulated provisioner): told by a
 * webhook why and what they may still do, taken out of rescue mode with the machine stopped, unable to boot
 * it or to destroy what is being looked into (the server, its snapshots), then told when it is lifted.
 */
type Server = {
  id: number;
  status: string;
  power_state: string | null;
  expires_at: string;
  status_reason: string | null;
  rescue: { state: string } | null;
  hold: { reason: string; since: string; period_paused: boolean } | null;
};

const read = async (key: string, id: number) =>
  (await api(`/servers/${id}`, { key })).body as unknown as Server;

describe("an operator's hold, as the owner lives it", () => {
  let receiver: Receiver;
  let support: OperatorSession;
  beforeAll(async () => {
    receiver = await startReceiver();
    const operator = await addOperator(
      { ...inject("appEnv"), DATA_DIR: inject("appDataDir") },
      "holds-support",
      "support",
    );
    support = await signInOperator(inject("baseUrl"), operator);
  }, 120_000);
  afterAll(() => receiver.close());

  it("tells the owner why and what they may do, ends rescue mode stopped, keeps the server and its snapshots, and tells them when it ends", async () => {
    const { apiKey, server } = await accountWithActiveServer<Server>({
      hostname: `held-${Date.now().toString(36)}`,
    });
    const hook = await api("/webhooks", {
      method: "POST",
      key: apiKey,
      // Every event (the default), the new ones among them.
      body: { url: `${receiver.url}/held-${server.id}` },
    });
    expect(hook.status).toBe(201);
    const secret = hook.body.secret as string;
    const events = () =>
      receiver.received
        .filter((request) => request.path === `/held-${server.id}`)
        .map((request) => verified(request, secret));

    // A snapshot, then rescue mode: what the owner has when the abuse report comes in.
    const taken = await api(`/servers/${server.id}/snapshots`, { method: "POST", key: apiKey, body: {} });
    expect(taken.status).toBe(202);
    const snapshotId = taken.body.id as number;
    await until(
      async () => (await api(`/servers/${server.id}/snapshots/${snapshotId}`, { key: apiKey })).body.state,
      (state) => state === "available",
    );
    expect(
      (await api(`/servers/${server.id}/rescue`, { method: "POST", key: apiKey, body: {} })).status,
    ).toBe(202);
    await until(
      () => read(apiKey, server.id),
      (s) => s.rescue?.state === "active",
    );

    const reason = "Phishing pages reported by cert@example.org";
    const suspended = await operatorApi(inject("baseUrl"), support, `/servers/${server.id}/suspension`, {
      method: "POST",
      body: { reason },
    });
    expect(suspended.status).toBe(200);

    // Out of rescue mode, stopped: the owner cannot boot it (their own system or the rescue one).
    const held = await until(
      () => read(apiKey, server.id),
      (s) => s.rescue === null && s.power_state === "stopped",
    );
    expect(held).toMatchObject({
      status: "suspended",
      status_reason: `Suspended by the operator: ${reason}`,
      hold: { reason, period_paused: true },
    });
    const leave = await api(`/servers/${server.id}/rescue`, { method: "DELETE", key: apiKey });
    expect(leave.status).toBe(409);
    expect(errorCode(leave)).toBe("server_not_active");
    expect(leave.body.message).toContain(reason);

    // Nothing being looked into can be destroyed: not the server, not a snapshot.
    const terminate = await api(`/servers/${server.id}`, { method: "DELETE", key: apiKey });
    expect(terminate.status).toBe(409);
    expect(errorCode(terminate)).toBe("server_held");
    expect(terminate.body.message).toContain(reason);
    const deleteSnapshot = await api(`/servers/${server.id}/snapshots/${snapshotId}`, {
      method: "DELETE",
      key: apiKey,
    });
    expect(deleteSnapshot.status).toBe(409);
    expect(errorCode(deleteSnapshot)).toBe("server_held");
    expect((await read(apiKey, server.id)).status).toBe("suspended");
    expect((await api(`/servers/${server.id}/snapshots/${snapshotId}`, { key: apiKey })).body.state).toBe(
      "available",
    );

    // The owner heard of it: the reason, the paused period, what they may still do.
    await until(
      async () => events().map((event) => event.type),
      (types) => types.includes("server.held") && types.includes("rescue.left"),
    );
    const heldEvent = events().find((event) => event.type === "server.held");
    expect(heldEvent?.data).toMatchObject({
      reason,
      scope: "server",
      period_paused: true,
      owner_may: ["view", "renew", "set_auto_renew", "top_up"],
      refused_until_lifted: expect.arrayContaining(["terminate", "delete_snapshot", "power", "rescue"]),
      server: { id: server.id, status: "suspended" },
    });

    // A renewal meanwhile is paid and keeps it held.
    const balance = await balanceOf(apiKey);
    const renewed = await api(`/servers/${server.id}/renew`, { method: "POST", key: apiKey });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ status: "suspended", hold: { reason } });
    expect(await balanceOf(apiKey)).toBeLessThan(balance);

    const lifted = await operatorApi(inject("baseUrl"), support, `/servers/${server.id}/suspension`, {
      method: "DELETE",
      body: { reason: "Pages taken down by the customer" },
    });
    expect(lifted.status).toBe(200);
    const back = await until(
      () => read(apiKey, server.id),
      (s) => s.status === "active" && s.power_state === "running",
    );
    expect(back).toMatchObject({ hold: null, status_reason: null, rescue: null });
    await until(
      async () => events().map((event) => event.type),
      (types) => types.includes("server.released"),
    );
    expect(events().find((event) => event.type === "server.released")?.data).toMatchObject({
      status_after: "active",
      held_since: held.hold?.since,
      server: { id: server.id, status: "active" },
    });
    // Now the owner decides again.
    expect(
      (await api(`/servers/${server.id}/snapshots/${snapshotId}`, { method: "DELETE", key: apiKey })).status,
    ).toBe(202);
  }, 120_000);
});
