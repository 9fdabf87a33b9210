/**
 * Runs a local anvil chain for tests and development: spawns the binary from the
 * `@foundry-rs/anvil-linux-amd64` package directly (not the npm wrapper, so the pid we hold is anvil's own),
 * bound to 127.0.0.1, and stops it on `stop()` or when this process exits.
 *
 * Blocks are mined every second by default (`--block-time 1`): with on-demand mining an idle chain's `latest`
 * timestamp goes stale, and EIP-3009 validity windows (checked against `block.timestamp`) then fail in
 * `eth_call` simulations.
 */
import { type ChildProcess, spawn } from "node:child_process";
// A namespace import on purpose: webpack (Next server builds) rewrites `createRequire` imported by name and
// would try to bundle the resolved binary; through the namespace it leaves the lookup to Node at run time.
import * as nodeModule from "node:module";
import path from "node:path";
import { freeLoopbackPort } from "@/lib/util/free-port";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";

export type LocalChain = { rpcUrl: string; chainId: number; port: number; stop(): Promise<void> };

export type StartAnvilOptions = {
  chainId: number;
  /** 0 or undefined: pick a free loopback port. */
  port?: number;
  /** Seconds between blocks; default 1. */
  blockTime?: number;
  /** Passed as `--state`: loaded at start if the file exists, written when anvil stops (on SIGTERM). */
  statePath?: string;
};

const READY_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const STDERR_TAIL_CHARS = 4_000;
/** Attempts when we picked the port and another process took it before anvil bound it. */
const AUTO_PORT_ATTEMPTS = 3;

const ANVIL_PACKAGE_BINARY = "@foundry-rs/anvil-linux-amd64/bin/anvil";

/**
 * Path of the anvil binary shipped in the optional dependency `@foundry-rs/anvil-linux-amd64`, resolved from
 * this module and, failing that (a bundle moved away from its sources), from the working directory.
 */
export function anvilBinaryPath(): string {
  const bases = [import.meta.url, path.join(process.cwd(), "package.json")];
  const failures: string[] = [];
  for (const base of bases) {
    try {
      return nodeModule.createRequire(base).resolve(ANVIL_PACKAGE_BINARY);
    } catch (error) {
      failures.push(firstLine(error));
    }
  }
  throw new Error(
    `anvil binary not found (${ANVIL_PACKAGE_BINARY}, an optional dependency for linux x64 only): ` +
      failures.join("; "),
  );
}

// Every anvil started by this process, killed by a single `exit` listener (registered once per process, even
// if this module is loaded more than once).
const running = processWide("anvil.children", () => {
  const children = new Set<ChildProcess>();
  process.once("exit", () => {
    // Only synchronous work is possible here. SIGTERM (not SIGKILL) so that anvil still writes `--state`.
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    }
  });
  return children;
});

class AnvilExitedError extends Error {}

export async function startAnvil(options: StartAnvilOptions): Promise<LocalChain> {
  const { chainId } = options;
  const blockTime = options.blockTime ?? 1;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new Error(`invalid chain id: ${chainId}`);
  if (!(blockTime > 0))
    throw new Error(`invalid block time: ${blockTime} (on-demand mining is not supported)`);
  const binary = anvilBinaryPath();
  const autoPort = !options.port;
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freeLoopbackPort());
    try {
      return await launch(binary, { chainId, blockTime, port, statePath: options.statePath });
    } catch (error) {
      const portTaken = error instanceof AnvilExitedError && /address already in use/i.test(error.message);
      if (!(autoPort && portTaken && attempt < AUTO_PORT_ATTEMPTS)) throw error;
    }
  }
}

async function launch(
  binary: string,
  options: { chainId: number; blockTime: number; port: number; statePath: string | undefined },
): Promise<LocalChain> {
  const { chainId, blockTime, port, statePath } = options;
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--chain-id",
    String(chainId),
    "--block-time",
    String(blockTime),
    // `--quiet` is what `anvil --help` documents (1.7.1 also accepts `--silent`).
    "--quiet",
  ];
  if (statePath) args.push("--state", statePath);

  // stdout is ignored rather than piped: an unread pipe fills up and blocks the chain. stderr is drained into
  // a bounded tail for error messages.
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderrTail = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      running.delete(child);
      resolve();
    });
  });
  let spawnError: Error | undefined;
  child.once("error", (error) => {
    spawnError = error;
  });
  running.add(child);

  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (): Promise<void> => {
    if (hasExited() || child.pid === undefined) {
      running.delete(child);
      return;
    }
    child.kill("SIGTERM");
    const timer = setTimeout(() => {
      if (!hasExited()) child.kill("SIGKILL");
    }, STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  const rpcUrl = `http://127.0.0.1:${port}`;
  const command = `anvil (${binary} ${args.join(" ")})`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      // Poll after a pause, and check for an exit first: with an explicit port that is taken, something else may
      // answer there while our anvil is exiting with "Address already in use".
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (spawnError) throw new Error(`${command} could not be started: ${spawnError.message}`);
      if (hasExited()) {
        // Let the last stderr chunks arrive before quoting them.
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new AnvilExitedError(
          `${command} exited during start-up with ${child.exitCode !== null ? `code ${child.exitCode}` : child.signalCode}` +
            `\n${stderrTail.trim() || "(no stderr output)"}`,
        );
      }
      const answered = await rpcChainId(rpcUrl);
      if (answered !== undefined && !hasExited()) {
        if (answered !== chainId) {
          throw new Error(`${command} answers eth_chainId ${answered}, expected ${chainId}`);
        }
        return { rpcUrl, chainId, port, stop };
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${command} did not answer eth_chainId on ${rpcUrl} within ${READY_TIMEOUT_MS} ms` +
            `\n${stderrTail.trim() || "(no stderr output)"}`,
        );
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The chain id answered by `eth_chainId`, or undefined while nothing (or something else) answers. */
async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { result?: unknown };
    return typeof body.result === "string" ? Number.parseInt(body.result, 16) : undefined;
  } catch {
    return undefined;
  }
}
