import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

export class VirshError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
    /** What virsh printed before it failed (a command may have succeeded before a later line failed). */
    readonly stdout = "",
    /** virsh was stopped at its timeout: whatever it was doing may or may not have happened. */
    readonly timedOut = false,
  ) {
    super(`virsh ${args[0]}: ${stderr.trim().split("\n").pop() ?? "failed"}`);
    this.name = "VirshError";
  }
}

type Exit = {
  stdout: string;
  stderr: string;
  error: (Error & { killed?: boolean; signal?: NodeJS.Signals | null }) | null;
};

/**
 * What a failed virsh said, or what ended it when it said nothing. virsh writes to the host through its
 * transport (ssh's pipe): when that closes under it, as a connection refused can under load before virsh has
 * printed why, the write ends virsh by SIGPIPE without a word.
 */
function failureText(exit: Exit): string {
  if (exit.stderr.trim()) return exit.stderr;
  if (exit.error?.signal === "SIGPIPE")
    return "error: the connection to the host closed (virsh ended by SIGPIPE)";
  return String(exit.error?.message);
}

/**
 * Runs a program with an argument array (never a shell). Standard input gets `input`, or is closed at once:
 * a program that asks for something (a password, a host key) then fails straight away instead of at the timeout.
 */
function execute(
  program: string,
  args: string[],
  options: { input?: string; timeoutMs?: number; env: NodeJS.ProcessEnv },
): Promise<Exit> {
  return new Promise((resolve) => {
    const child = execFile(
      program,
      args,
      { timeout: options.timeoutMs ?? 60_000, maxBuffer: 8 * 1024 * 1024, env: options.env },
      (error, stdout, stderr) => resolve({ stdout: String(stdout), stderr: String(stderr), error }),
    );
    // A program that exits without reading its input must not fail the write.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input);
  });
}

/**
 * Runs `use` with virsh's environment: the C locale, and a private, empty cache folder removed afterwards.
 * Reading commands from standard input is virsh's interactive mode, which keeps a readline history of them
 * (a password hash among them) under `$XDG_CACHE_HOME/libvirt/virsh` and reports an error when it cannot
 * create that folder (an unwritable HOME, as under systemd's ProtectHome). `VIRSH_HISTSIZE=0` keeps that
 * history empty, and the folder it goes to lives only as long as the call.
 */
async function withVirshEnvironment<T>(use: (env: NodeJS.ProcessEnv) => Promise<T>): Promise<T> {
  const cache = await mkdtemp(path.join(tmpdir(), "vps-virsh-"));
  try {
    return await use({ ...process.env, LC_ALL: "C", XDG_CACHE_HOME: cache, VIRSH_HISTSIZE: "0" });
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
}

/** Runs a program with an argument array (never a shell) and resolves with its standard output. */
export async function run(
  program: string,
  args: string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  const exit =
    program === "virsh"
      ? await withVirshEnvironment((env) => execute(program, args, { ...options, env }))
      : await execute(program, args, { ...options, env: { ...process.env, LC_ALL: "C" } });
  if (!exit.error) return exit.stdout;
  if (program !== "virsh") throw exit.error;
  throw new VirshError(args.slice(2), failureText(exit), exit.stdout, exit.error.killed);
}

/** `virsh -c <uri> <args...>` */
export function virsh(uri: string, args: string[], options: { timeoutMs?: number } = {}): Promise<string> {
  return run("virsh", ["-c", uri, ...args], options);
}

/** Quotes one argument for virsh's own command parser: every character escaped with a backslash. */
export function virshShellArg(value: string): string {
  // A line break would end the command: arguments are printable ASCII.
  if (!/^[\x20-\x7e]*$/.test(value)) throw new RangeError("a virsh argument is printable ASCII");
  return [...value].map((c) => `\\${c}`).join("");
}

/** virsh's interactive output without its prompt lines, which echo each command read (secrets included). */
const withoutEcho = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => !/^virsh [#>] /.test(line))
    .join("\n");

/**
 * Runs virsh commands read from standard input, so secrets in them never appear in an argument list (`ps`),
 * and resolves with what virsh printed: not quiet (`-q`), since commands confirm what they did only then.
 * virsh's shell exits 0 whatever happens, so a failure is read from its "error:" lines.
 */
export async function virshScript(
  uri: string,
  script: string,
  options: { timeoutMs?: number; name?: string } = {},
): Promise<string> {
  const exit = await withVirshEnvironment((env) =>
    execute("virsh", ["-c", uri], { input: script, timeoutMs: options.timeoutMs, env }),
  );
  const output = withoutEcho(exit.stdout);
  const failed = exit.stderr.split("\n").filter((line) => line.startsWith("error:"));
  if (exit.error || failed.length > 0) {
    throw new VirshError(
      [options.name ?? "script"],
      failed.join("\n") || failureText(exit),
      output,
      exit.error?.killed === true,
    );
  }
  return output;
}
