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
