import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { balanceOf, fund } from "./funding";
import { api, createAccount, errorCode, waitForServer } from "./helpers";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("cloud-init user data (simulated provisioner)", () => {
  it("an order and a reinstall take it; no answer ever shows it again, only its SHA-256 and size", async () => {
    const { apiKey } = await createAccount();
    await fund(apiKey, 25);
    const balance = await balanceOf(apiKey);
    // A secret in it, as user data often holds (a token, a password for an app).
    const marker = `token-${randomBytes(8).toString("hex")}`;
    const userData = `#cloud-config\nwrite_files:\n  - path: /root/app.env\n    content: TOKEN=${marker}\n`;
    const order = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      api("/servers", {
        method: "POST",
        key: apiKey,
        body: { plan: "pup", location: "nl", os: "debian-13", ...body },
        headers,
      });

    for (const bad of [
      `runcmd: [[echo, ${marker}]]`,
      `#cloud-config\n- ${marker}\n`,
      `#cloud-config\nkey: [${marker}\n`,
      `#!/bin/sh\n#${"x".repeat(33_000)}\n`,
      `#!/bin/sh\n#${"é".repeat(16_500)}\n`,
      42,
    ]) {
      const refused = await order({ user_data: bad });
      expect([refused.status, errorCode(refused)]).toEqual([400, "invalid_user_data"]);
      expect(JSON.stringify(refused.body)).not.toContain(marker);
    }
    expect(await balanceOf(apiKey)).toBe(balance);

    const headers = { "idempotency-key": `user-data-${marker}` };
    const ordered = await order({ user_data: userData }, headers);
    expect(ordered.status).toBe(201);
    const facts = { sha256: sha256(userData), size_bytes: Buffer.byteLength(userData) };
    expect(ordered.body.user_data).toEqual(facts);
    const id = ordered.body.id as number;
    const replay = await order({ user_data: userData }, headers);
    expect([replay.status, replay.body.id, replay.body.user_data]).toEqual([201, id, facts]);
    expect(errorCode(await order({ user_data: `${userData}# changed\n` }, headers))).toBe(
      "idempotency_key_reused",
    );
    const server = await waitForServer<{ status: string; hostname: string }>(
      apiKey,
      id,
      (s) => s.status === "active",
    );
    for (const answer of [
      ordered,
      replay,
      await api(`/servers/${id}`, { key: apiKey }),
      await api("/servers", { key: apiKey }),
      await api(`/servers/${id}/credentials`, { key: apiKey }),
    ]) {
      expect(JSON.stringify(answer.body)).not.toContain(marker);
    }
    expect((await api(`/servers/${id}`, { key: apiKey })).body.user_data).toEqual(facts);

    // A reinstall takes its own (a script here); without any, the server has none.
    const reinstall = (body: Record<string, unknown>) =>
      api(`/servers/${id}/reinstall`, {
        method: "POST",
        key: apiKey,
        body: { confirm: server.hostname, snapshot_first: false, ...body },
      });
    expect(errorCode(await reinstall({ user_data: "echo no interpreter line" }))).toBe("invalid_user_data");
    const script = `#!/bin/sh\necho ${marker} > /root/from-script\n`;
    const reinstalled = await reinstall({ user_data: script });
    expect(reinstalled.status).toBe(202);
    expect(reinstalled.body.user_data).toEqual({
      sha256: sha256(script),
      size_bytes: Buffer.byteLength(script),
    });
    expect(JSON.stringify(reinstalled.body)).not.toContain(marker);
    await waitForServer<{ status: string }>(apiKey, id, (s) => s.status === "active");
    expect((await reinstall({})).body.user_data).toBeNull();
  }, 90_000);
});
