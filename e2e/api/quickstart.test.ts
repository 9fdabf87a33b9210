/**
 * The README's quickstart, run as written: its shell blocks are taken from the README itself and executed
 * against a freshly started demo (its own embedded database and demo chain), so the README cannot drift from
 * what works.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type RunningApp, startApp } from "../support/app-server";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The ```bash blocks between the README's quickstart markers, in order. */
function quickstartBlocks(readme: string): string[] {
  const start = readme.indexOf("<!-- quickstart:start -->");
  const end = readme.indexOf("<!-- quickstart:end -->");
  if (start < 0 || end < start) throw new Error("README has no quickstart markers");
  return [...readme.slice(start, end).matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
}

function runBash(script: string, cwd: string, env: Record<string, string>, timeoutMs: number) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => resolve({ code, output }));
  });
}

// One demo of its own is enough: the quickstart does not depend on the database kind.
describe.skipIf(inject("dbTarget") !== "pglite")("the README quickstart", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ PROVISION_DELAY_SECONDS: "2", WATCHER_INTERVAL_MS: "300" });
  }, 90_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("runs as written, from a new account to a renewed server", { timeout: 180_000 }, async () => {
    const blocks = quickstartBlocks(readFileSync(path.join(ROOT, "README.md"), "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    // A scratch folder stands in for the user's checkout: the files the commands write land there.
    const cwd = mkdtempSync(path.join(tmpdir(), "vps-quickstart-"));
    symlinkSync(path.join(ROOT, "scripts"), path.join(cwd, "scripts"));
    symlinkSync(path.join(ROOT, "node_modules"), path.join(cwd, "node_modules"));
    // Each block's last command says what it showed; the final lines prove the whole path worked.
    const script = `${blocks.join("\n")}\necho "QUICKSTART-END $KEY $SERVER"`;
    const run = await runBash(script, cwd, { BASE: `${app.url}/api/v1`, DATA_DIR: app.dataDir }, 150_000);
    expect(run.code, run.output).toBe(0);
    const [, key, server] = run.output.match(/QUICKSTART-END (vpsk_\S+) (\d+)/) ?? [];
    expect(key, run.output).toBeDefined();

    // What the commands did, read back through the API: both top-ups credited, the server active and renewed.
    const get = async (p: string) =>
      (await fetch(`${app.url}/api/v1${p}`, { headers: { authorization: `Bearer ${key}` } })).json();
    const topups = (await get("/topups")).topups as { coin: string; status: string; credited_usd: number }[];
    expect(topups.map((t) => [t.coin, t.status, t.credited_usd])).toEqual([
      ["USDCBASE", "completed", 30],
      ["BTC", "completed", 50],
    ]);
    const detail = await get(`/servers/${server}`);
    expect(detail).toMatchObject({ hostname: "first-box", status: "active", auto_renew: true });
    const account = await get("/account");
    // 80 paid in, two months of the cheapest plan in nl charged (order and renewal).
    expect(account.balance_usd).toBeCloseTo(80 - 2 * detail.price_usd, 2);
    expect(run.output).toContain('"password"');
  });
});
