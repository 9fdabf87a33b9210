import { execFile } from "node:child_process";

export class VirshError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
  ) {
    super(`virsh ${args[0]}: ${stderr.trim().split("\n").pop() ?? "failed"}`);
    this.name = "VirshError";
  }
}

/** Runs a program with an argument array (never a shell) and resolves with its standard output. */
export function run(
  program: string,
  args: string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      program,
      args,
      {
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 8 * 1024 * 1024,
        env: { ...process.env, LC_ALL: "C" },
      },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            program === "virsh" ? new VirshError(args.slice(2), String(stderr || error.message)) : error,
          );
        } else resolve(String(stdout));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
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

/**
 * Runs virsh commands read from standard input, so secrets in them never appear in an argument list (`ps`).
 * virsh's shell exits 0 whatever happens, so a failure is read from its "error:" lines.
 */
export function virshScript(
  uri: string,
  script: string,
  options: { timeoutMs?: number; name?: string } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "virsh",
      ["-q", "-c", uri],
      { timeout: options.timeoutMs ?? 60_000, env: { ...process.env, LC_ALL: "C" } },
      (error, stdout, stderr) => {
        const failed = String(stderr)
          .split("\n")
          .filter((line) => line.startsWith("error:"));
        if (error || failed.length > 0) {
          reject(new VirshError([options.name ?? "script"], failed.join("\n") || String(error?.message)));
        } else resolve(String(stdout));
      },
    );
    child.stdin?.end(script);
  });
}
