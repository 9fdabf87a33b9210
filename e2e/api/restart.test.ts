import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { freePort, type RunningApp, startApp } from "../support/app-server";
import { until } from "./helpers";

/** Calls one specific app instance (not the suite's shared one). */
async function call(
  app: RunningApp,
  route: string,
  init: { method?: string; key?: string; body?: unknown } = {},
) {
  const response = await fetch(`${app.url}/api/v1${route}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.body ? { "content-type": "application/json" } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

// The embedded database belongs to one process, so this runs its own app on its own DATA_DIR (started twice:
// each start can take a minute beside CI's VM suite).
describe.runIf(inject("dbTarget") === "pglite")("work driven from the database survives a restart", () => {
  it("a server ordered before a restart is provisioned after it", async () => {
    const env: Record<string, string> = {
      ...inject("appEnv"),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-restart-")),
    };
    env.PROVISION_DELAY_SECONDS = "3";
    let app = await startApp(env);
    let serverId: number;
    let key: string;
    try {
      key = (await call(app, "/account", { method: "POST" })).body.api_key as string;
      const topup = await call(app, "/topups", {
        method: "POST",
        key,
        body: { amount: 25, coin: "USDTTRC" },
      });
      await call(app, `/demo/topups/${topup.body.ref}/pay`, { method: "POST", key, body: {} });
      await until(
        () => call(app, `/topups/${topup.body.ref}`, { key }),
        (r) => r.body.status === "completed",
      );
      const ordered = await call(app, "/servers", {
        method: "POST",
        key,
        body: { plan: "pup", location: "my", os: "debian-13" },
      });
      expect(ordered.status).toBe(201);
      serverId = ordered.body.id as number;
    } finally {
      await app.stop();
    }
    app = await startApp(env);
    try {
      const active = await until(
        () => call(app, `/servers/${serverId}`, { key }),
        (r) => r.body.status === "active",
      );
      expect(active.body.ip).toMatch(/^100\.64\./);
    } finally {
      await app.stop();
    }
  }, 240_000);
});

describe("an instance whose log is gone", () => {
  it("stops instead of failing to log that it failed to log, at a full core", async () => {
    // The app with its standard output and error read by nobody: a test runner or a supervisor that died.
    const child = spawn(
      process.execPath,
      [
        path.resolve(import.meta.dirname, "../../scripts/server.mjs"),
        "-H",
        "127.0.0.1",
        "-p",
        String(await freePort()),
      ],
      {
        env: {
          ...process.env,
          ...inject("appEnv"),
          DATA_DIR: mkdtempSync(path.join(tmpdir(), "vps-no-log-")),
        },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    child.stdout?.destroy();
    child.stderr?.destroy();
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const gone = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(() => resolve("running"), 60_000)),
    ]);
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // the whole group is gone already
    }
    // Its first line ("server: listening ...") could not be written: it exited with 1.
    expect(gone).toBe(1);
  }, 240_000);
});
