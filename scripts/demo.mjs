#!/usr/bin/env node
/**
 * `npm run demo`: build once, then start. The production build is reused while the sources it was made from are
 * unchanged (a fingerprint of every tracked and untracked-but-not-ignored file is kept beside it), so a restart
 * takes seconds. Type checking is not part of the build: `npm test` runs it.
 *
 * HOST (default 127.0.0.1) and PORT (default 3000) choose where it listens. `npm run demo -- --rebuild` forces a
 * build; `npm run demo:reset` (`--reset`) deletes the demo's data in DATA_DIR: accounts, the embedded database,
 * the generated secrets and the demo chain.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const NEXT_BIN = path.join(ROOT, "node_modules/next/dist/bin/next");
/** The app's own HTTP server around Next (it also serves the consoles' WebSockets). */
const SERVER = path.join(ROOT, "scripts/server.mjs");
const FINGERPRINT_FILE = path.join(ROOT, ".next", "source-fingerprint");
/** What the build does not read: changing these must not cost a rebuild. */
const IGNORED = [/^e2e\//, /^scripts\//, /^deploy\//, /\.test\.tsx?$/, /\.md$/, /^\.ci\//, /^\.github\//];

/** Files the build reads: git's view when this is a checkout (honours .gitignore), else a walk of the tree. */
function sourceFiles() {
  const git = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (git.status === 0) return git.stdout.split("\0").filter(Boolean);
  const skip = new Set(["node_modules", ".next", ".data", ".git", "test-results", "playwright-report"]);
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      if (skip.has(entry.name)) continue;
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.isFile()) files.push(relative);
    }
  };
  walk(".");
  return files.map((file) => path.normalize(file));
}

function fingerprint() {
  const hash = createHash("sha256");
  for (const file of sourceFiles().sort()) {
    if (IGNORED.some((pattern) => pattern.test(file))) continue;
    const full = path.join(ROOT, file);
    if (!existsSync(full) || !statSync(full).isFile()) continue; // deleted but still in the index
    hash.update(file).update("\0").update(readFileSync(full)).update("\0");
  }
  return hash.digest("hex");
}

function run(args, env) {
  const result = spawnSync(process.execPath, [NEXT_BIN, ...args], { cwd: ROOT, stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (process.argv.includes("--reset")) {
  const dataDir = path.resolve(ROOT, process.env.DATA_DIR || ".data");
  // Only a folder the app made: never delete whatever DATA_DIR happens to point at.
  const ours = ["pglite", "demo-secrets.json", "demo-chain.json"].some((name) =>
    existsSync(path.join(dataDir, name)),
  );
  if (!existsSync(dataDir)) console.log(`demo: nothing to reset (${dataDir} does not exist)`);
  else if (!ours) {
    console.error(
      `demo: ${dataDir} holds no demo data (no pglite/, demo-secrets.json or demo-chain.json); left alone`,
    );
    process.exit(1);
  } else {
    rmSync(dataDir, { recursive: true, force: true });
    console.log(`demo: deleted ${dataDir}; the next start begins with no accounts and new demo secrets`);
  }
  process.exit(0);
}

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const host = process.env.HOST || "127.0.0.1";
const port = process.env.PORT || "3000";
const current = fingerprint();
const built =
  existsSync(path.join(ROOT, ".next", "BUILD_ID")) && existsSync(FINGERPRINT_FILE)
    ? readFileSync(FINGERPRINT_FILE, "utf8").trim()
    : "";

if (process.argv.includes("--rebuild") || built !== current) {
  console.log(
    built
      ? "demo: the sources changed since the last build; rebuilding (about 2 minutes on 2 cores)..."
      : "demo: first start, building the app (about 2 to 3 minutes on 2 cores; later starts reuse the build)...",
  );
  const started = Date.now();
  run(["build", "--webpack"], env);
  writeFileSync(FINGERPRINT_FILE, `${current}\n`);
  console.log(`demo: built in ${Math.round((Date.now() - started) / 1000)} s`);
} else {
  console.log("demo: sources unchanged since the last build, reusing it");
}

console.log(`demo: starting at http://${host.includes(":") ? `[${host}]` : host}:${port} (Ctrl+C stops it)`);
const server = spawn(process.execPath, [SERVER, "-H", host, "-p", port], {
  cwd: ROOT,
  stdio: "inherit",
  env,
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
