/**
 * A private sshd on 127.0.0.1 for the second hypervisor "host": this machine's libvirtd reached through a
 * remote URI. Its own config, host key and a client key generated for the run; key-only root logins.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sshAnswers } from "../../lib/servers/libvirt/provisioner";

export type LocalSshd = {
  uri: string;
  /** Stops the daemon (its port refuses) and keeps its keys, so `restore` brings the same host back. */
  cut: () => Promise<void>;
  restore: () => Promise<void>;
  stop: () => Promise<void>;
};

export async function startLocalSshd(port: number): Promise<LocalSshd> {
  const dir = mkdtempSync(path.join(tmpdir(), "vps-sshd-"));
  const file = (name: string) => path.join(dir, name);
  for (const key of ["host_key", "client_key"]) {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", file(key)]);
  }
  writeFileSync(file("authorized_keys"), readFileSync(file("client_key.pub")));
  // The host key the client pins: a URI's known_hosts file ([host]:port form for a non-default port).
  writeFileSync(file("known_hosts"), `[127.0.0.1]:${port} ${readFileSync(file("host_key.pub"), "utf8")}`);
  writeFileSync(
    file("sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${file("host_key")}`,
      `PidFile ${file("sshd.pid")}`,
      `AuthorizedKeysFile ${file("authorized_keys")}`,
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      // The files live under the world-writable temporary folder, which StrictModes refuses.
      "StrictModes no",
      "",
    ].join("\n"),
  );
  mkdirSync("/run/sshd", { recursive: true });
  let child: ChildProcess | undefined;
  const listen = async () => {
    // Another server on the port (a run killed before it stopped its sshd) would answer for this one.
    if (await sshAnswers("127.0.0.1", port, 500))
      throw new Error(`port ${port} is taken: no sshd started there`);
    const daemon = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", file("sshd_config")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    child = daemon;
    let log = "";
    daemon.stderr?.on("data", (chunk) => {
      log += chunk;
    });
    const deadline = Date.now() + 10_000;
    while (!(await sshAnswers("127.0.0.1", port, 500))) {
      if (daemon.exitCode !== null || Date.now() > deadline) {
        daemon.kill();
        throw new Error(`local sshd did not start on ${port}: ${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const halt = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  };
  try {
    await listen();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // libvirt's libssh transport honours keyfile and known_hosts (its ssh transport ignores known_hosts).
  const query = new URLSearchParams({
    keyfile: file("client_key"),
    known_hosts: file("known_hosts"),
    sshauth: "privkey",
  });
  return {
    uri: `qemu+libssh://root@127.0.0.1:${port}/system?${query}`,
    cut: halt,
    restore: listen,
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
