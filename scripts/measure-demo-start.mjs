#!/usr/bin/env node
/**
 * How long `npm run demo` takes until the API answers: `--build` measures a start that builds first (the first
 * start of a fresh clone), then every run measures a restart with no source change (the build is reused).
 *
 *   node scripts/measure-demo-start.mjs [--build] [--runs 3]
 *
 * The starts share one DATA_DIR, as a user's restarts do (the first one creates it), on a free loopback port;
 * each is stopped after it answered. The app's own timing lines ("vps: ...") are shown.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] || 3) || 3;

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const dataDir = mkdtempSync(path.join(tmpdir(), "vps-demo-start-"));

async function timeStart(extraArgs) {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(ROOT, "scripts/demo.mjs"), ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  child.stdout.on("data", (chunk) => {
    for (const line of String(chunk).split("\n")) if (line.startsWith("vps:")) console.log(`    ${line}`);
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm run demo exited with ${child.exitCode}`);
      if (Date.now() - started > 10 * 60_000) throw new Error("no answer within 10 minutes");
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
        if (response.ok) return Date.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    process.kill(-child.pid, "SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
if (args.includes("--build")) {
  console.log(`start with a build:         ${seconds(await timeStart(["--rebuild"]))}`);
}
const restarts = [];
for (let i = 0; i < runs; i++) {
  const ms = await timeStart([]);
  restarts.push(ms);
  console.log(`restart ${i + 1} (build reused):  ${seconds(ms)}`);
}
restarts.sort((a, b) => a - b);
console.log(`restart median: ${seconds(restarts[Math.floor(restarts.length / 2)])} (target <= 15 s)`);
rmSync(dataDir, { recursive: true, force: true });
