import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processWide } from "@/lib/util/process-wide";
import { run } from "./virsh";

/**
 * Commands on a hypervisor host beyond what libvirt offers (nftables, routes): run here for a host on this
 * machine (`qemu:///system`), over SSH for a remote one, to the user, host, port and key its libvirt URI
 * names (`keyfile`, and `known_hosts` as libvirt's libssh transport takes it), with the host key checked
 * strictly (the configuration refuses URIs that turn the check off). One SSH connection per host is kept open
 * for a minute between calls (ControlMaster), so a firewall change costs a round trip, not a handshake.
 */

export type HostCommand = string[];

export class HostCommandError extends Error {
  constructor(
    readonly command: string,
    readonly stderr: string,
  ) {
    super(`${command}: ${stderr.trim().split("\n").pop() || "failed"}`);
    this.name = "HostCommandError";
  }
}

/** Where this process keeps its SSH control sockets: a private folder made once. */
const controlDir = () =>
  processWide("servers.host-shell.control", () => mkdtempSync(path.join(tmpdir(), "vps-ssh-")));

export type SshTarget = {
  user: string | undefined;
  host: string;
  port: string | undefined;
  options: string[];
};

/** The SSH login of a remote libvirt URI, or undefined for a URI that names no remote host (this machine). */
export function sshTargetOf(uri: string): SshTarget | undefined {
  const parsed = new URL(uri);
  if (!/^qemu\+(ssh|libssh|libssh2):$/.test(parsed.protocol) || parsed.hostname === "") return undefined;
  const options: string[] = [];
  const keyfile = parsed.searchParams.get("keyfile");
  if (keyfile) options.push("-i", keyfile, "-o", "IdentitiesOnly=yes");
  const knownHosts = parsed.searchParams.get("known_hosts");
  if (knownHosts) options.push("-o", `UserKnownHostsFile=${knownHosts}`);
  return {
    user: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port || undefined,
    options,
  };
}

/** One argument as the remote shell reads it: single-quoted. */
export const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** The ssh argument list that runs `remote` (a shell command line) on the target. */
export function sshArguments(target: SshTarget, remote: string): string[] {
  return [
    "-o",
    "BatchMode=yes",
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    "ConnectTimeout=10",
    "-o",
    "ControlMaster=auto",
    "-o",
    `ControlPath=${path.join(controlDir(), "%C")}`,
    "-o",
    "ControlPersist=60",
    ...target.options,
    ...(target.port ? ["-p", target.port] : []),
    ...(target.user ? ["-l", target.user] : []),
    target.host,
    "--",
    remote,
  ];
}

const commandLine = (commands: HostCommand[], join: string) =>
  commands.map((command) => command.map(shellQuote).join(" ")).join(join);

/**
 * Runs `commands` on the host one after the other, stopping at the first that fails; `input` is the first
 * one's standard input. Resolves with the last one's output.
 */
export async function runOnHost(
  uri: string,
  commands: HostCommand[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const target = sshTargetOf(uri);
  const describe = commands.map((command) => command[0]).join(" && ");
  try {
    if (target) {
      return await run("ssh", sshArguments(target, commandLine(commands, " && ")), {
        input: options.input,
        timeoutMs,
      });
    }
    let output = "";
    for (const [index, [program = "", ...args]] of commands.entries()) {
      output = await run(program, args, { input: index === 0 ? options.input : undefined, timeoutMs });
    }
    return output;
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr || (error as Error).message);
    throw new HostCommandError(describe, stderr);
  }
}

/** Runs each command whatever the others did (clean-up that may find nothing to remove). */
export async function runEachOnHost(uri: string, commands: HostCommand[]): Promise<void> {
  const target = sshTargetOf(uri);
  if (target) {
    await run("ssh", sshArguments(target, `${commandLine(commands, " ; ")} ; true`), {
      timeoutMs: 30_000,
    }).catch((error: unknown) => {
      throw new HostCommandError("ssh", String((error as { stderr?: string }).stderr ?? error));
    });
    return;
  }
  for (const [program = "", ...args] of commands) await run(program, args).catch(() => undefined);
}
