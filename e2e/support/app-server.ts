/**
 * Starts the production build (scripts/server.mjs, as `npm start` does) on a free loopback port for tests and benchmarks,
 * and stops it again. The app must have been built first (`npm run build`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freeLoopbackPort } from "../../lib/util/free-port";

export type RunningApp = {
  url: string;
  dataDir: string;
  stop: () => Promise<void>;
  /** Everything the app wrote to its standard output and error so far. */
  logs: () => string;
  /** The same, as a file another process can read (a test beside a suite's global setup). */
  outputFile: string;
  /** The app's process (the Node server itself): what a benchmark reads its CPU time from. */
  pid: number;
};

const ROOT = path.resolve(import.meta.dirname, "../..");

/** A free loopback port (the same helper the local chains use). */
export const freePort = freeLoopbackPort;

async function waitForHealth(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`app exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/api/v1/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`app did not become healthy within ${timeoutMs} ms`);
}

export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    throw new Error("No production build found: run `npm run build` first.");
  }
  // A caller may pin the port (benchmarks on an assigned port); otherwise any free one.
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = env.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), "vps-app-"));
  let output = "";
  const outputFile = path.join(dataDir, "app-output.log");
  const outputCopy = createWriteStream(outputFile);
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "scripts/server.mjs"), "-H", "127.0.0.1", "-p", String(port)],
    {
      cwd: ROOT,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", DATA_DIR: dataDir, ...env, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  child.stdout?.on("data", (chunk) => {
    output += chunk;
    outputCopy.write(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
    outputCopy.write(chunk);
  });
  child.once("exit", () => outputCopy.end());
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid, "SIGTERM");
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitForHealth(url, child, 60_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return { url, dataDir, stop, logs: () => output, outputFile, pid: child.pid as number };
}

/** Calls the API of an app started here as JSON, with an API key when given; resolves to the parsed body. */
export async function callApp(
  app: RunningApp,
  path: string,
  init: { method?: string; key?: string; body?: unknown } = {},
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const response = await fetch(`${app.url}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return (await response.json()) as Record<string, unknown>;
}
